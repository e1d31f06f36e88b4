#include "analyzers/core/run_totals.h"

#include <string>

#include "analyzers/core/step_ctes.h"

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
  // Ranks: every rank that contributed a record of any kind.
  s.ranks = query_int(db, R"sql(
    SELECT count(*) FROM (
      SELECT rank FROM ranks WHERE run_id=?1 UNION SELECT rank FROM op_tasks WHERE run_id=?1
      UNION SELECT rank FROM host_events WHERE run_id=?1
      UNION SELECT rank FROM device_events WHERE run_id=?1
      UNION SELECT rank FROM steps WHERE run_id=?1))sql",
                      run_id);
  // Steps and step time: the run's step source (core/step_ctes.h, the base of every gain), its
  // distinct steps and mean step (the recorded durations, else the sum of each step's
  // breakdown), stub steps left out of the mean as the run fact's base leaves them out. Without
  // such steps, the distinct steps of the op tables' step ids.
  const std::string ctes = "WITH " + step_ctes();
  s.steps = query_int(db, (ctes + " SELECT count(DISTINCT step) FROM stepall").c_str(), run_id);
  if (s.steps == 0) {
    s.steps = query_int(
        db, "SELECT count(DISTINCT step) FROM op_tasks WHERE run_id=?1 AND step IS NOT NULL",
        run_id);
  }
  s.step_time_us = query_real(db, (ctes + " SELECT avg(d) / 1000.0 FROM stepdur").c_str(), run_id);
  // Device time per rank: the op tables when the rank has them, else the timeline's device
  // activities. An Ascend folder holds both kernel_details.csv and trace_view.json for the same
  // tasks; adding both would count every task twice.
  s.device_time_us = query_real(db, R"sql(
    WITH ops AS (SELECT rank, sum(dur_ns) AS ns FROM op_tasks WHERE run_id=?1 GROUP BY rank),
    dev AS (SELECT rank, sum(dur_ns) AS ns FROM device_events
            WHERE run_id=?1 AND kind IN ('kernel','memcpy','memset') GROUP BY rank),
    ranks AS (SELECT rank FROM ops UNION SELECT rank FROM dev)
    SELECT sum(coalesce(ops.ns, dev.ns, 0))/1000.0 FROM ranks
    LEFT JOIN ops ON ops.rank=ranks.rank LEFT JOIN dev ON dev.rank=ranks.rank)sql",
                                run_id);
  store::update_run_totals(db, s);
  return s;
}

}  // namespace perfsage::analyzers
