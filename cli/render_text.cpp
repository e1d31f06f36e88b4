#include "cli/render_text.h"

#include <map>
#include <sstream>

#include "app/front_end_names.h"

namespace perfsage::cli {
namespace {

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string evidence_text(const perfsage::v1::Evidence& e) {
  if (e.value_case() != perfsage::v1::Evidence::kNumber) return e.text();
  return app::format_evidence(e.name(), e.number());
}

void render_run(std::ostringstream& os, const perfsage::v1::AnalysisReport& report) {
  const auto& r = report.run();
  os << "Run " << r.id() << (r.job().empty() ? "" : " (job " + r.job() + ")") << "\n";
  os << "  framework " << (r.framework().empty() ? "unknown" : r.framework()) << ", device "
     << r.device();
  if (!r.chip().empty()) os << " (" << r.chip() << ")";
  os << ", ranks " << r.ranks() << ", steps " << r.steps() << "\n";
  os << "  step time "
     << (r.step_time_us() > 0 ? app::format_us(r.step_time_us()) : "n/a")
     // A sum of activity durations over all devices and streams: concurrent streams make it
     // larger than the time the run took, so it is named for what it is.
     << ", summed device activity " << app::format_us(r.device_time_us()) << ", " << r.ops()
     << " op tasks, " << r.kernels() << " kernels\n";
}

void render_ingest(std::ostringstream& os, const perfsage::v1::AnalysisReport& report) {
  os << "\nInputs\n";
  for (const auto& f : report.ingest()) {
    os << "  " << f.path() << "\n    " << f.collector() << ": " << f.records() << " records";
    if (f.skipped()) os << ", " << f.skipped() << " skipped";
    os << "\n";
    for (const auto& w : f.warnings()) os << "    ! " << w << "\n";
  }
  if (report.recognised_inputs() == 0) os << "  ! no input was recognised\n";
}

void render_finding(std::ostringstream& os, int n, const perfsage::v1::Finding& r) {
  os << "\n"
     << n << ". [" << upper(app::severity_name(r.severity())) << "] " << r.title() << "  ("
     << r.pack() << "/" << r.rule() << ", id " << r.id() << ")\n";
  os << "   " << r.message() << "\n";
  // An empty subject (a call issued outside any framework op) keeps the id apart but says
  // nothing to a reader.
  std::string subjects;
  for (const auto& s : r.subjects())
    if (!s.empty()) subjects += (subjects.empty() ? "" : ", ") + s;
  if (!subjects.empty()) os << "   subjects: " << subjects << "\n";
  if (r.evidence_size()) {
    os << "   evidence:";
    for (const auto& e : r.evidence()) os << " " << e.name() << "=" << evidence_text(e);
    os << "\n";
  }
  if (r.estimated_gain_us() > 0) {
    os << "   estimated gain: " << app::format_us(r.estimated_gain_us());
    if (r.estimated_gain_share() > 0)
      os << " (" << app::format_pct(r.estimated_gain_share()) << ")";
    os << "\n";
  }
  if (r.has_action() && !r.action().kind().empty()) {
    os << "   action: " << r.action().kind();
    // The detail message's fields in declaration order, e.g. hint="..." ops=[a, b].
    const auto* refl = r.action().GetReflection();
    std::vector<const google::protobuf::FieldDescriptor*> fields;
    refl->ListFields(r.action(), &fields);
    for (const auto* f : fields) {
      if (f->message_type() == nullptr) continue;
      const auto& sub = refl->GetMessage(r.action(), f);
      std::vector<const google::protobuf::FieldDescriptor*> sf;
      sub.GetReflection()->ListFields(sub, &sf);
      for (const auto* s : sf) {
        std::string value;
        if (s->is_repeated()) {
          int n = sub.GetReflection()->FieldSize(sub, s);
          for (int i = 0; i < n; ++i) {
            std::string item;
            value +=
                (i ? ", " : "") + sub.GetReflection()->GetRepeatedStringReference(sub, s, i, &item);
          }
          value = "[" + value + "]";
        } else if (s->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_STRING) {
          value = sub.GetReflection()->GetString(sub, s);
        } else if (s->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_BOOL) {
          value = sub.GetReflection()->GetBool(sub, s) ? "true" : "false";
        } else if (s->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_INT32) {
          value = std::to_string(sub.GetReflection()->GetInt32(sub, s));
        }
        os << " " << s->name() << "=" << value;
      }
    }
    os << "\n";
  }
}

// Applied actions of the job judged on this run: the verdict, then what was compared.
void render_verdicts(std::ostringstream& os, const perfsage::v1::AnalysisReport& report) {
  if (report.action_verdicts().empty()) return;
  os << "\nApplied actions judged on this run (" << report.action_verdicts_size() << ")\n";
  for (const auto& v : report.action_verdicts()) {
    os << "  apply " << v.apply_id() << ", finding " << v.finding() << " (run " << v.before_run()
       << " -> " << v.after_run() << "): " << v.verdict() << "\n    " << v.detail() << "\n";
  }
}

}  // namespace

std::string render_text(const perfsage::v1::AnalysisReport& report) {
  std::ostringstream os;
  render_run(os, report);
  render_ingest(os, report);
  os << "\nKnowledge bases\n";
  for (const auto& p : report.packs()) {
    os << "  " << p.name() << " " << p.version() << ": " << p.status();
    if (p.status() == "ok") os << ", " << app::count_text(p.fired(), "finding");
    if (!p.error().empty()) os << " — " << p.error();
    if (!p.source().empty() && p.source() != "builtin") os << "  [" << p.source() << "]";
    os << "\n";
  }
  os << "\nRecommendations (" << report.recommendations_size() << ")\n";
  if (!report.base().text().empty())
    os << "  gains and shares are " << report.base().text() << "\n";
  if (report.recommendations().empty()) {
    // "No problem" about inputs perfsage only partly read would mislead: point at the warnings.
    int warnings = 0;
    for (const auto& f : report.ingest()) warnings += f.warnings_size();
    if (report.recognised_inputs() == 0)
      os << "  none, and no pack ran: nothing in the inputs was recognised, so this is no clean "
            "run";
    else
      os << "  none: no rule found a problem in what perfsage read of this run";
    if (warnings > 0)
      os << " (the inputs above carry " << app::count_text(warnings, "warning")
         << ": what could not be read is not judged)";
    os << "\n";
  }
  // Findings stay in rank order; the ones of a rule past its first few are counted and named
  // once, after the last one shown.
  std::map<std::string, int> seen, total;
  for (const auto& r : report.recommendations()) ++total[r.pack() + "/" + r.rule()];
  int n = 0;
  for (const auto& r : report.recommendations()) {
    const std::string key = r.pack() + "/" + r.rule();
    int k = ++seen[key];
    if (k <= kShownPerRule) render_finding(os, ++n, r);
    if (k == kShownPerRule && total[key] > kShownPerRule)
      os << "   … and " << total[key] - kShownPerRule << " more like it (" << key
         << "; all of them are in --format json)\n";
  }
  render_verdicts(os, report);
  return os.str();
}

std::string render_ingest_text(const perfsage::v1::AnalysisReport& report) {
  std::ostringstream os;
  render_run(os, report);
  render_ingest(os, report);
  return os.str();
}

}  // namespace perfsage::cli
