#include "analyzers/core/op_stats.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analyzers/core/op_groups.h"
#include "analyzers/core/shared_passes.h"
#include "analyzers/core/tables.h"
#include "store/bind.h"

namespace perfsage::analyzers {
namespace {

// op_name_totals: each rank's groups merged per name (integer sums, exact in any order), by
// rank and name.
void write_name_totals(store::Database& db, int64_t run_id, const std::vector<OpGroup>& groups) {
  struct Total {
    int64_t tasks = 0, dur_ns = 0, state_tasks = 0, state_ns = 0;
    bool dynamic = false, is_static = false;
  };
  std::map<std::pair<int64_t, std::string_view>, Total> by_name;
  for (const auto& g : groups) {
    Total& t = by_name[{g.rank, g.name}];
    t.tasks += g.count;
    t.dur_ns += g.sum_ns;
    t.state_tasks += g.state_tasks;
    t.state_ns += g.state_ns;
    t.dynamic = t.dynamic || g.dynamic;
    t.is_static = t.is_static || g.is_static;
  }
  store::RowInserter insert(db, tables::op_name_totals());
  for (const auto& [key, t] : by_name)
    insert.insert(run_id, key.first, key.second, t.tasks, t.dur_ns, t.state_tasks, t.state_ns,
                  int64_t{t.dynamic ? 1 : 0}, int64_t{t.is_static ? 1 : 0});
}

}  // namespace

void compute_op_stats(store::Database& db, int64_t run_id, SharedPasses* passes) {
  store::Transaction txn(db);
  db.prepare("DELETE FROM op_stats WHERE run_id=?1").bind(1, run_id).run();
  db.prepare("DELETE FROM op_type_stats WHERE run_id=?1").bind(1, run_id).run();
  db.prepare("DELETE FROM op_block_dims WHERE run_id=?1").bind(1, run_id).run();
  db.prepare("DELETE FROM op_name_totals WHERE run_id=?1").bind(1, run_id).run();
  // Shapes, dtypes and formats of an op name rarely change between executions; the most recent
  // execution's values stand for the op. Grouped in C++ (op_groups.h), not by SQL's sort.
  const std::shared_ptr<const OpGroups> shared = op_groups(passes, db, run_id);
  const std::vector<OpGroup>& groups = shared->groups;
  {
    store::RowInserter insert(db, tables::op_block_dims());
    for (const auto& g : shared->block_dims)
      insert.insert(run_id, g.rank, g.core_type, g.name, g.block_dim, g.tasks, g.dur_ns);
  }
  write_name_totals(db, run_id, groups);
  // A share is of the rank's own op time, so that a rank's rows do not depend on the others.
  std::map<int64_t, int64_t> rank_ns;
  std::string op_ranks = "[";  // the ranks with op tasks, as a JSON array for the SQL below
  for (const auto& g : groups) {
    auto [it, added] = rank_ns.emplace(g.rank, 0);
    it->second += g.sum_ns;
    if (!added) continue;
    if (op_ranks.size() > 1) op_ranks += ',';
    op_ranks += std::to_string(g.rank);
  }
  op_ranks += "]";
  store::RowInserter insert(db, tables::op_stats());
  for (const auto& g : groups) {
    const int64_t total_ns = rank_ns[g.rank];
    double n = static_cast<double>(g.count);
    insert.insert(
        run_id, g.rank, g.name, g.type, g.core_type, g.count, g.sum_ns / 1000.0,
        g.sum_ns / n / 1000.0, g.min_ns / 1000.0, g.max_ns / 1000.0,
        total_ns > 0 ? static_cast<double>(g.sum_ns) / static_cast<double>(total_ns) : 0.0,
        g.block_dim, g.input_shapes, g.input_dtypes, g.input_formats, g.output_shapes,
        g.output_dtypes, g.output_formats, g.op_state, g.cube_fops.total(), g.vector_fops.total(),
        g.ratio[kMac].mean(), g.ratio[kVec].mean(), g.ratio[kScalar].mean(), g.ratio[kMte2].mean(),
        g.ratio[kMte3].mean(), g.read_bytes.total(), g.write_bytes.total());
  }
  // A rank without an op table (a trace_view.json or msprof timeline alone): its timeline's
  // device tasks stand for its ops: name, task type as core type, times; the name doubles as
  // the type and there are no shapes or counters. GPU kernels carry no "Task Type" and stay out.
  db.prepare(R"sql(
    WITH t AS (
      SELECT rank, name, json_extract(args, '$."Task Type"') AS core_type, dur_ns
      FROM device_events
      WHERE run_id=?1 AND kind='kernel' AND json_valid(args)
        AND json_extract(args, '$."Task Type"') IS NOT NULL
        AND rank NOT IN (SELECT value FROM json_each(?2))),
    g AS (SELECT rank, name, core_type, count(*) AS n, sum(dur_ns) AS ns, avg(dur_ns) AS mean,
                 min(dur_ns) AS lo, max(dur_ns) AS hi
          FROM t GROUP BY rank, name, core_type),
    s AS (SELECT *, sum(ns) OVER (PARTITION BY rank) AS rank_ns FROM g)
    INSERT INTO op_stats(run_id, rank, name, type, core_type, count, total_us, avg_us, min_us,
                         max_us, share)
    SELECT ?1, rank, name, name, core_type, n, ns/1000.0, mean/1000.0, lo/1000.0, hi/1000.0,
           CASE WHEN rank_ns > 0 THEN ns*1.0/rank_ns ELSE 0 END
    FROM s ORDER BY rank, name, core_type
  )sql")
      .bind(1, run_id)
      .bind(2, op_ranks)
      .run();
  // Per rank and op type, from the per-name rows just written (one row per rank, name, type and
  // core type): a second pass over every task would cost as much as the first. Only ranks with
  // an op table have op types; the timeline fallback above names no types.
  db.prepare(R"sql(
    INSERT INTO op_type_stats
    SELECT ?1, rank, type, core_type, sum(count), count(*), sum(total_us),
           sum(total_us) / sum(count), max(max_us), sum(share)
    FROM op_stats WHERE run_id=?1 AND rank IN (SELECT value FROM json_each(?2))
    GROUP BY rank, type, core_type
  )sql")
      .bind(1, run_id)
      .bind(2, op_ranks)
      .run();
  txn.commit();
}

}  // namespace perfsage::analyzers
