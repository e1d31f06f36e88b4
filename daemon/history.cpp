#include "daemon/history.h"

#include <map>

#include "app/run_comparison.h"
#include "app/run_detail.h"

namespace perfsage::daemon {
namespace v1 = perfsage::v1;

std::string gain_trend(const std::vector<double>& shares, bool in_latest, bool only_latest) {
  if (!in_latest) return "resolved";
  if (only_latest || shares.size() < 2) return "new";
  double first = shares.front(), last = shares.back();
  if (last > first * 1.1 + 1e-12) return "rising";
  if (last < first * 0.9 - 1e-12) return "falling";
  return "steady";
}

v1::JobHistory build_history(const std::string& job, const std::vector<store::RunRow>& runs,
                             const std::vector<store::FindingRow>& rows) {
  v1::JobHistory out;
  out.set_job(job);
  for (const auto& r : runs) *out.add_runs() = app::run_summary(r);
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
    h->set_title(app::finding_title(row));
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

}  // namespace perfsage::daemon
