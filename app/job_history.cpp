#include "app/job_history.h"

#include <map>

#include "app/gain_tolerance.h"
#include "app/run_comparison.h"
#include "app/run_detail.h"

namespace perfsage::app {
namespace v1 = perfsage::v1;

std::optional<v1::JobHistory> job_history(Database& db, const std::string& job, int last_runs,
                                          const std::set<int64_t>& in_progress) {
  std::vector<int64_t> ids;
  auto rows = store::job_finding_rows(db, job, last_runs, ids);
  if (!in_progress.empty()) {
    std::erase_if(ids, [&](int64_t id) { return in_progress.count(id) > 0; });
    std::erase_if(rows,
                  [&](const store::FindingRow& r) { return in_progress.count(r.run_id) > 0; });
  }
  if (ids.empty()) return std::nullopt;
  return build_history(job, store::run_rows(db, ids), rows);
}

v1::JobHistory build_history(const std::string& job, const std::vector<store::RunRow>& runs,
                             const std::vector<store::FindingRow>& rows) {
  v1::JobHistory out;
  out.set_job(job);
  for (const auto& r : runs) *out.add_runs() = run_summary(r);
  int64_t latest = runs.empty() ? 0 : runs.back().id;
  std::map<std::string, size_t> index;  // finding id → position in out.findings, first-seen order
  std::map<std::string, std::vector<double>> shares;
  for (const auto& row : rows) {
    auto [it, added] = index.try_emplace(row.id, static_cast<size_t>(out.findings_size()));
    v1::FindingHistory* h =
        added ? out.add_findings() : out.mutable_findings(static_cast<int>(it->second));
    if (added) {
      h->set_id(row.id);
      h->set_pack(row.pack);
      h->set_rule(row.rule);
      h->set_first_seen_run(row.run_id);
      h->set_first_seen(row.created);
    }
    if (h->last_seen_run() == row.run_id) continue;  // one point per run
    h->set_title(finding_title(row));
    h->set_severity(static_cast<v1::Severity>(row.severity));
    h->set_last_seen_run(row.run_id);
    h->set_last_seen(row.created);
    h->set_runs_seen(h->runs_seen() + 1);
    auto* g = h->add_gains();
    g->set_run_id(row.run_id);
    g->set_created(row.created);
    g->set_gain_us(row.gain_us);
    g->set_gain_share(row.gain_share);
    shares[row.id].push_back(row.gain_share);
  }
  for (auto& h : *out.mutable_findings()) {
    bool open = h.last_seen_run() == latest;
    h.set_open(open);
    h.set_trend(gain_trend(shares[h.id()], open, h.first_seen_run() == latest));
  }
  return out;
}

}  // namespace perfsage::app
