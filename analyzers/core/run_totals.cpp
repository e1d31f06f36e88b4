#include "analyzers/core/run_totals.h"

#include <map>
#include <optional>
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

// The distinct ranks of a run's records (a NULL rank is one more, as SQL's UNION counts it).
struct Ranks {
  std::set<int64_t> ranks;
  bool null_rank = false;
  void add(store::EventBlockReader& b, int c, size_t r) {
    if (b.is_null(c, r))
      null_rank = true;
    else
      ranks.insert(b.int_at(c, r));
  }
};

// Summed dur_ns per rank of the rows that count as device time; a rank whose rows all lack a
// duration has none (SQL's sum() over NULLs).
using DeviceNs = std::map<int64_t, std::optional<int64_t>>;

// Every rank of a block table's rows and, for the rows of the kinds `timed` accepts, their
// device time per rank: one pass over two integer columns of the blocks, instead of SQL's
// UNION and GROUP BY through the virtual tables (every row of a big run, sorted).
template <typename Timed>
void scan_ranks(store::Database& db, const store::EventSchema& schema, int64_t run_id, Timed timed,
                Ranks& ranks, DeviceNs& device_ns) {
  const int c_rank = store::column_index(schema, "rank"),
            c_dur = store::column_index(schema, "dur_ns");
  store::BlockScan scan(db, schema, run_id, std::nullopt, {"rank", "dur_ns"});
  while (scan.next()) {
    auto& b = scan.block();
    const bool counts = timed(scan.kind());
    for (size_t r = 0; r < b.rows(); ++r) {
      ranks.add(b, c_rank, r);
      if (!counts || b.is_null(c_rank, r)) continue;
      std::optional<int64_t>& ns = device_ns[b.int_at(c_rank, r)];
      if (!b.is_null(c_dur, r)) ns = ns.value_or(0) + b.int_at(c_dur, r);
    }
  }
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
  // Ranks: every rank that contributed a record of any kind. Device time per rank: the op
  // tables when the rank has them, else the timeline's device activities. An Ascend folder
  // holds both kernel_details.csv and trace_view.json for the same tasks; adding both would
  // count every task twice.
  Ranks ranks;
  DeviceNs op_ns, activity_ns;
  scan_ranks(
      db, store::op_task_schema(), run_id, [](const std::string&) { return true; }, ranks, op_ns);
  scan_ranks(
      db, store::host_event_schema(), run_id, [](const std::string&) { return false; }, ranks,
      activity_ns);
  scan_ranks(
      db, store::device_event_schema(), run_id,
      [](const std::string& kind) {
        return kind == "kernel" || kind == "memcpy" || kind == "memset";
      },
      ranks, activity_ns);
  {
    auto st = db.prepare(
        "SELECT rank FROM ranks WHERE run_id=?1 UNION SELECT rank FROM steps WHERE run_id=?1");
    st.bind(1, run_id);
    while (st.step()) {
      if (st.is_null(0))
        ranks.null_rank = true;
      else
        ranks.ranks.insert(st.int64(0));
    }
  }
  s.ranks = static_cast<int64_t>(ranks.ranks.size()) + (ranks.null_rank ? 1 : 0);
  int64_t device_ns = 0;
  for (const auto& [rank, ns] : op_ns) device_ns += ns ? *ns : activity_ns[rank].value_or(0);
  for (const auto& [rank, ns] : activity_ns)
    if (!op_ns.count(rank)) device_ns += ns.value_or(0);
  s.device_time_us = static_cast<double>(device_ns) / 1000.0;
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

store::RunRecord compute_run_totals_of_ranks(store::Database& db, int64_t run_id,
                                             const RunIdentity& id) {
  auto s = store::load_run(db, run_id).value();
  s.framework = id.framework;
  s.device = id.device.empty() ? "unknown" : id.device;
  s.chip = id.chip;
  s.ranks = query_int(db,
                      "SELECT count(*) FROM (SELECT rank FROM rank_totals WHERE run_id=?1 UNION "
                      "SELECT rank FROM ranks WHERE run_id=?1 UNION SELECT rank FROM steps WHERE "
                      "run_id=?1)",
                      run_id);
  // A rank's op tables when it has op tasks with a duration, else its timeline's activities,
  // as compute_run_totals sums them.
  s.device_time_us =
      static_cast<double>(query_int(
          db,
          "SELECT coalesce(sum(CASE WHEN op_tasks > 0 AND op_busy_ns IS NOT NULL THEN op_busy_ns "
          "ELSE device_busy_ns END), 0) FROM rank_totals WHERE run_id=?1",
          run_id)) /
      1000.0;
  const std::string ctes = "WITH " + step_ctes();
  s.steps = query_int(db, (ctes + " SELECT count(DISTINCT step) FROM stepall").c_str(), run_id);
  s.step_time_us = query_real(db, (ctes + " SELECT avg(d) / 1000.0 FROM stepdur").c_str(), run_id);
  store::update_run_totals(db, s);
  return s;
}

}  // namespace perfsage::analyzers
