#include "app/run_detail.h"

#include "app/analysis.h"
#include "app/run_charts.h"
#include "engine/finding.h"

namespace perfsage::app {
namespace v1 = perfsage::v1;
v1::RunSummary run_summary(const store::RunRow& r) {
  v1::RunSummary s;
  s.set_id(r.id);
  s.set_job(r.job);
  s.set_created(r.created);
  s.set_status(r.status);
  for (const auto& in : r.inputs) s.add_inputs(in);
  s.set_framework(r.framework);
  s.set_device(r.device);
  s.set_chip(r.chip);
  s.set_steps(r.steps);
  s.set_step_time_us(r.step_time_us);
  int64_t total = 0;
  for (const auto& [sev, n] : r.findings_by_severity) {
    (*s.mutable_findings_by_severity())[engine::severity_name(static_cast<v1::Severity>(sev))] += n;
    total += n;
  }
  s.set_findings(total);
  s.set_top_gain_share(r.top_gain_share);
  s.set_queue_job(r.queue_job);
  return s;
}

Result<v1::RunDetail> load_run_detail(store::Database& db, int64_t run_id) {
  auto report = load_report(db, run_id);
  if (!report) return report.error();
  try {
    auto rows = store::run_rows(db, {run_id});
    if (rows.empty()) return Error{ErrorKind::usage, "no run " + std::to_string(run_id)};
    v1::RunDetail out;
    *out.mutable_summary() = run_summary(rows.front());
    *out.mutable_report() = std::move(*report);
    *out.mutable_charts() = load_run_charts(db, run_id);
    return out;
  } catch (const std::exception& e) {
    return Error{ErrorKind::store, e.what()};
  }
}

}  // namespace perfsage::app
