#include "app/report.h"

#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <stdexcept>

#include "actions/lifecycle.h"
#include "analyzers/core/run_totals.h"
#include "app/knowledge.h"
#include "engine/facts/registry.h"
#include "engine/kb/message_text.h"
#include "store/action_store.h"
#include "store/count_text.h"
#include "store/results.h"
#include "store/run_registry.h"

namespace perfsage::app {

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

perfsage::v1::Base build_base(store::Database& db, int64_t run_id) {
  perfsage::v1::Base base;
  auto facts = engine::facts::query_facts(db, run_id, *fact_catalog()->find("run"));
  if (facts.empty()) return base;
  // The run fact states the base (docs/facts.md, "The base of gains and shares").
  std::string kind = "none";
  double base_us = 0, steps = 0;
  int64_t ranks = 1, stubs = 0;
  for (const auto& [slot, v] : facts[0]) {
    if (slot == "base") kind = v.text;
    if (slot == "base_us") base_us = v.number();
    if (slot == "base_steps") steps = v.number();
    if (slot == "base_ranks") ranks = static_cast<int64_t>(v.number());
    if (slot == "stub_steps") stubs = static_cast<int64_t>(v.number());
  }
  base.set_kind(kind);
  base.set_us(base_us);
  base.set_steps(static_cast<int64_t>(std::llround(steps)));
  base.set_ranks(ranks);
  if (kind == "step")
    base.set_text("per step: one rank's mean step over " + engine::format_number(steps) +
                  " step(s) on " + std::to_string(ranks) + " rank(s), " +
                  engine::format_us(base_us) +
                  (stubs > 0 ? "; " + std::to_string(stubs) +
                                   " stub step(s) under a quarter of the median left out"
                             : std::string()));
  else if (kind == "run")
    base.set_text("per run: the whole recorded run, " + engine::format_us(base_us));
  else
    base.set_text("structural estimates: the run has no timing (profile it to measure)");
  return base;
}

namespace {
bool recognised(const store::IngestFile& f) {
  return f.collector != "unrecognised" && f.collector != "skipped";
}
}  // namespace

int64_t recognised_inputs(store::Database& db, int64_t run_id) {
  int64_t n = 0;
  for (const auto& f : store::load_ingest_files(db, run_id)) n += recognised(f) ? 1 : 0;
  return n;
}

std::string nothing_recognised_notice(store::Database& db, int64_t run_id) {
  size_t files = 0;
  bool raw = false;  // profiler files without analysis data (msprof's binary dumps, markers)
  for (const auto& f : store::load_ingest_files(db, run_id)) {
    files += f.collector == "unrecognised" ? 1 : 0;
    raw |= f.collector == "skipped";
  }
  std::string what = files == 0 && !raw ? "the inputs hold no file"
                     : files == 0 ? "the inputs hold only profiler files without analysis data"
                                  : store::count_text(static_cast<int64_t>(files), "file") +
                                        " in no format perfsage reads";
  return "nothing recognised: " + what +
         "; no pack ran, so the absence of findings means nothing (docs/formats.md lists what "
         "is read)";
}

void describe_evidence(perfsage::v1::Finding& finding) {
  for (auto& e : *finding.mutable_evidence()) {
    // Units follow the key's name; findings stored before a unit was known get it too.
    e.set_unit(engine::evidence_unit(e.name()));
    e.set_display(e.value_case() == perfsage::v1::Evidence::kNumber
                      ? engine::format_evidence(e.name(), e.number())
                      : e.text());
  }
}

perfsage::v1::AnalysisReport build_report(store::Database& db, int64_t run_id) {
  perfsage::v1::AnalysisReport report;
  *report.mutable_run() = build_run(db, run_id);
  int64_t recognised = 0;
  for (const auto& f : store::load_ingest_files(db, run_id)) {
    auto* i = report.add_ingest();
    i->set_path(f.path);
    i->set_collector(f.collector);
    i->set_records(f.records);
    i->set_skipped(f.skipped);
    for (const auto& w : f.warnings) i->add_warnings(w);
    recognised += app::recognised(f) ? 1 : 0;
  }
  report.set_recognised_inputs(recognised);
  for (const auto& p : store::load_pack_results(db, run_id)) {
    auto* r = report.add_packs();
    r->set_name(p.pack);
    r->set_version(p.version);
    r->set_status(p.status);
    r->set_fired(p.fired);
    r->set_error(p.error);
    r->set_source(p.source);
    r->set_isolated(p.isolated);
  }
  for (const auto& f : store::load_findings(db, run_id)) {
    auto* finding = report.add_recommendations();
    if (!finding->ParseFromString(f.payload))
      throw store::StoreError("finding " + f.id + " of run " + std::to_string(run_id) +
                              " is damaged in the store");
    describe_evidence(*finding);
  }
  *report.mutable_base() = build_base(db, run_id);
  for (const auto& v : store::load_action_verdicts(db)) {
    if (v.after_run == run_id) *report.add_action_verdicts() = actions::verdict_message(v);
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

}  // namespace perfsage::app
