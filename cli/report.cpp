#include "cli/report.h"

#include <google/protobuf/util/json_util.h>

#include <map>
#include <sstream>

#include "analyzers/core/run_summary.h"
#include "cli/format.h"
#include "engine/kb/format.h"
#include "store/results.h"
#include "store/run_registry.h"

namespace perfsage::cli {
namespace {

void parse_struct(const std::string& json, google::protobuf::Struct* out) {
  if (json.empty()) return;
  // Stored JSON is written by perfsage itself; a parse failure leaves the field empty.
  (void)google::protobuf::util::JsonStringToMessage(json, out);
}

std::string value_text(const google::protobuf::Value& v) {
  switch (v.kind_case()) {
    case google::protobuf::Value::kNumberValue: {
      std::ostringstream os;
      os << v.number_value();
      return os.str();
    }
    case google::protobuf::Value::kStringValue:
      return v.string_value();
    case google::protobuf::Value::kBoolValue:
      return v.bool_value() ? "true" : "false";
    case google::protobuf::Value::kListValue: {
      std::string s;
      for (const auto& e : v.list_value().values()) s += (s.empty() ? "" : ", ") + value_text(e);
      return s;
    }
    default:
      return "";
  }
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

int severity_rank(const std::string& s) {
  if (s == "critical") return 4;
  if (s == "high") return 3;
  if (s == "medium") return 2;
  if (s == "low") return 1;
  if (s == "info") return 0;
  return -1;
}

perfsage::v1::Run build_run(store::Database& db, int64_t run_id) {
  perfsage::v1::Run run;
  auto s = store::load_run(db, run_id).value();
  auto counts = analyzers::count_run_records(db, run_id);
  run.set_id(s.id);
  run.set_job(s.job);
  for (const auto& in : s.inputs) run.add_inputs(in);
  run.set_framework(s.framework);
  run.set_device(s.device);
  run.set_chip(s.chip);
  run.set_ranks(s.ranks);
  run.set_steps(s.steps);
  run.set_step_time_us(s.step_time_us);
  run.set_device_time_us(s.device_time_us);
  run.set_ops(counts.ops);
  run.set_kernels(counts.kernels);
  return run;
}

perfsage::v1::AnalysisReport build_report(store::Database& db, int64_t run_id) {
  perfsage::v1::AnalysisReport report;
  *report.mutable_run() = build_run(db, run_id);
  for (const auto& f : store::load_ingest_files(db, run_id)) {
    auto* i = report.add_ingest();
    i->set_path(f.path);
    i->set_collector(f.collector);
    i->set_records(f.records);
    i->set_skipped(f.skipped);
    for (const auto& w : f.warnings) i->add_warnings(w);
  }
  for (const auto& p : store::load_pack_results(db, run_id)) {
    auto* r = report.add_packs();
    r->set_name(p.pack);
    r->set_version(p.version);
    r->set_status(p.status);
    r->set_fired(p.fired);
    r->set_error(p.error);
  }
  for (const auto& rec : store::load_recommendations(db, run_id)) {
    auto* r = report.add_recommendations();
    r->set_pack(rec.pack);
    r->set_pack_version(rec.pack_version);
    r->set_rule(rec.rule);
    r->set_severity(rec.severity);
    r->set_category(rec.category);
    r->set_title(rec.title);
    r->set_message(rec.message);
    for (const auto& s : rec.subjects) r->add_subjects(s);
    parse_struct(rec.evidence_json, r->mutable_evidence());
    r->set_estimated_gain_us(rec.gain_us.value_or(0));
    r->set_estimated_gain_share(rec.gain_share.value_or(0));
    parse_struct(rec.action_json, r->mutable_action());
    for (const auto& ref : rec.references) r->add_references(ref);
  }
  return report;
}

std::string to_json(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions opts;
  opts.add_whitespace = true;
  opts.preserve_proto_field_names = true;
  opts.always_print_primitive_fields = true;
  std::string out;
  auto status = google::protobuf::util::MessageToJsonString(message, &out, opts);
  if (!status.ok()) throw std::runtime_error("cannot render JSON: " + status.ToString());
  return out;
}

namespace {
void render_run(std::ostringstream& os, const perfsage::v1::Run& r) {
  os << "Run " << r.id() << (r.job().empty() ? "" : " (job " + r.job() + ")") << "\n";
  os << "  framework " << (r.framework().empty() ? "unknown" : r.framework()) << ", device "
     << r.device();
  if (!r.chip().empty()) os << " (" << r.chip() << ")";
  os << ", ranks " << r.ranks() << ", steps " << r.steps() << "\n";
  os << "  step time " << (r.step_time_us() > 0 ? format_us(r.step_time_us()) : "n/a")
     << ", device time " << format_us(r.device_time_us()) << ", " << r.ops() << " op tasks, "
     << r.kernels() << " kernels\n";
}

void render_ingest(std::ostringstream& os,
                   const google::protobuf::RepeatedPtrField<perfsage::v1::IngestFile>& files) {
  os << "\nInputs\n";
  for (const auto& f : files) {
    os << "  " << f.path() << "\n    " << f.collector() << ": " << f.records() << " records";
    if (f.skipped()) os << ", " << f.skipped() << " skipped";
    os << "\n";
    for (const auto& w : f.warnings()) os << "    ! " << w << "\n";
  }
}
}  // namespace

std::string render_text(const perfsage::v1::AnalysisReport& report) {
  std::ostringstream os;
  render_run(os, report.run());
  render_ingest(os, report.ingest());
  os << "\nKnowledge bases\n";
  for (const auto& p : report.packs()) {
    os << "  " << p.name() << " " << p.version() << ": " << p.status();
    if (p.status() == "ok") os << ", " << p.fired() << " finding(s)";
    if (!p.error().empty()) os << " — " << p.error();
    os << "\n";
  }
  os << "\nRecommendations (" << report.recommendations_size() << ")\n";
  if (report.recommendations().empty()) os << "  none: no rule found a problem in this run\n";
  int n = 0;
  for (const auto& r : report.recommendations()) {
    os << "\n"
       << ++n << ". [" << upper(r.severity()) << "] " << r.title() << "  (" << r.pack() << "/"
       << r.rule() << ")\n";
    os << "   " << r.message() << "\n";
    if (r.subjects_size()) {
      os << "   subjects: ";
      for (int i = 0; i < r.subjects_size(); ++i) os << (i ? ", " : "") << r.subjects(i);
      os << "\n";
    }
    if (!r.evidence().fields().empty()) {
      os << "   evidence:";
      std::map<std::string, std::string> sorted;
      for (const auto& [k, v] : r.evidence().fields())
        sorted[k] = v.kind_case() == google::protobuf::Value::kNumberValue
                        ? engine::format_evidence(k, v.number_value())
                        : value_text(v);
      for (const auto& [k, v] : sorted) os << " " << k << "=" << v;
      os << "\n";
    }
    if (r.estimated_gain_us() > 0) {
      os << "   estimated gain: " << format_us(r.estimated_gain_us());
      if (r.estimated_gain_share() > 0) os << " (" << format_share(r.estimated_gain_share()) << ")";
      os << "\n";
    }
    if (!r.action().fields().empty()) {
      auto it = r.action().fields().find("kind");
      os << "   action: " << (it != r.action().fields().end() ? value_text(it->second) : "");
      for (const auto& [k, v] : r.action().fields()) {
        if (k != "kind") os << " " << k << "=" << value_text(v);
      }
      os << "\n";
    }
  }
  return os.str();
}

std::string render_ingest_text(const perfsage::v1::IngestReport& report) {
  std::ostringstream os;
  render_run(os, report.run());
  render_ingest(os, report.ingest());
  return os.str();
}

}  // namespace perfsage::cli
