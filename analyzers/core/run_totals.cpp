#include "analyzers/core/run_totals.h"

#include <set>
#include <string>

#include "analyzers/core/step_ctes.h"
#include "store/block_scan.h"

namespace perfsage::analyzers {
namespace {

double query_real(store::Database& db, const char* sql, int64_t run_id) {
  auto st = db.prepare(sql);
  st.bind(1, run_id);
  return st.step() && !st.is_null(0) ? st.real(0) : 0.0;
}

int64_t query_int(store::Database& db, const char* sql, int64_t run_id) {
  auto st = db.prepare(sql);
  st.bind(1, run_id);
  return st.step() && !st.is_null(0) ? st.int64(0) : 0;
}

}  // namespace

RunCounts count_run_records(store::Database& db, int64_t run_id) {
  RunCounts c;
  // A shared-mode catalog replica (store/run_extract.h) holds the counts, not the events.
  if (query_int(db, "SELECT count(*) FROM sqlite_master WHERE name='run_counts' AND ?1 = ?1",
                run_id) > 0) {
    auto st = db.prepare("SELECT ops, kernels FROM run_counts WHERE run_id=?1");
    st.bind(1, run_id);
    if (st.step()) return {st.int64(0), st.int64(1)};
  }
  c.ops = query_int(db, "SELECT count(*) FROM op_tasks WHERE run_id=?1", run_id);
  c.kernels =
      query_int(db, "SELECT count(*) FROM device_events WHERE run_id=?1 AND kind='kernel'", run_id);
  return c;
}

store::RunRecord compute_run_totals(store::Database& db, int64_t run_id, const RunIdentity& id) {
  auto s = store::load_run(db, run_id).value();
  s.framework = id.framework;
  s.device = id.device.empty() ? "unknown" : id.device;
  s.chip = id.chip;
  // From the ranks' totals (rank_totals), not the events, so that a cluster run assembled from
  // its ranks' extracts (no events) has the totals of the one-machine analysis. Ranks: every
  // rank that contributed a record of any kind.
  s.ranks = query_int(db,
                      "SELECT count(*) FROM (SELECT rank FROM rank_totals WHERE run_id=?1 UNION "
                      "SELECT rank FROM ranks WHERE run_id=?1 UNION SELECT rank FROM steps WHERE "
                      "run_id=?1)",
                      run_id);
  // Device time per rank: the op tables when the rank has op tasks with a duration, else the
  // timeline's device activities. An Ascend folder holds both kernel_details.csv and
  // trace_view.json for the same tasks; adding both would count every task twice.
  s.device_time_us =
      static_cast<double>(query_int(
          db,
          "SELECT coalesce(sum(CASE WHEN op_tasks > 0 AND op_busy_ns IS NOT NULL THEN op_busy_ns "
          "ELSE device_busy_ns END), 0) FROM rank_totals WHERE run_id=?1",
          run_id)) /
      1000.0;
  // Steps and step time: the run's step source (core/step_ctes.h, the base of every gain), its
  // distinct steps and mean step (the recorded durations, else the sum of each step's
  // breakdown), stub steps left out of the mean as the run fact's base leaves them out. Without
  // such steps, the distinct steps of the op tables' step ids.
  const std::string ctes = "WITH " + step_ctes();
  s.steps = query_int(db, (ctes + " SELECT count(DISTINCT step) FROM stepall").c_str(), run_id);
  if (s.steps == 0) {
    // SQL's count(DISTINCT step) sorted every task; this reads one column of the blocks.
    std::set<int64_t> steps;
    const auto& schema = store::op_task_schema();
    const int c_step = store::column_index(schema, "step");
    store::BlockScan scan(db, schema, run_id, std::nullopt, {"step"});
    while (scan.next()) {
      auto& b = scan.block();
      if (b.all_null(c_step)) continue;
      for (size_t r = 0; r < b.rows(); ++r)
        if (!b.is_null(c_step, r)) steps.insert(b.int_at(c_step, r));
    }
    s.steps = static_cast<int64_t>(steps.size());
  }
  s.step_time_us = query_real(db, (ctes + " SELECT avg(d) / 1000.0 FROM stepdur").c_str(), run_id);
  store::update_run_totals(db, s);
  return s;
}

}  // namespace perfsage::analyzers
