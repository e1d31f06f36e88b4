#include "analyzers/core/op_stats.h"

namespace perfsage::analyzers {

void compute_op_stats(store::Database& db, int64_t run_id) {
  store::Transaction txn(db);
  db.prepare("DELETE FROM op_stats WHERE run_id=?1").bind(1, run_id).run();
  db.prepare("DELETE FROM op_type_stats WHERE run_id=?1").bind(1, run_id).run();
  // Shapes, dtypes and formats of an op name rarely change between executions; the most recent
  // execution's values stand for the op (the rowid ordering keeps this deterministic). One
  // grouped pass over the run's tasks, then one rowid lookup per op for those values.
  db.prepare(R"sql(
    WITH total AS (SELECT sum(dur_ns) AS ns FROM op_tasks WHERE run_id=?1),
    agg AS (
      SELECT min(rank) AS rank, name, type, core_type, count(*) AS n, sum(dur_ns) AS sum_ns,
             avg(dur_ns) AS avg_ns, min(dur_ns) AS min_ns, max(dur_ns) AS max_ns,
             max(block_dim) AS block_dim, sum(cube_fops) AS cube_fops,
             sum(vector_fops) AS vector_fops, avg(mac_ratio) AS mac_ratio,
             avg(vec_ratio) AS vec_ratio, avg(scalar_ratio) AS scalar_ratio,
             avg(mte2_ratio) AS mte2_ratio, avg(mte3_ratio) AS mte3_ratio,
             sum(read_bytes) AS read_bytes, sum(write_bytes) AS write_bytes, max(rowid) AS rid
      FROM op_tasks WHERE run_id=?1 GROUP BY name, type, core_type)
    INSERT INTO op_stats
    SELECT ?1, a.rank, a.name, a.type, a.core_type, a.n,
           a.sum_ns/1000.0, a.avg_ns/1000.0, a.min_ns/1000.0, a.max_ns/1000.0,
           CASE WHEN (SELECT ns FROM total) > 0
                THEN a.sum_ns*1.0/(SELECT ns FROM total) ELSE 0 END,
           a.block_dim, l.input_shapes, l.input_dtypes, l.input_formats, l.output_shapes,
           l.output_dtypes, l.output_formats, l.op_state,
           a.cube_fops, a.vector_fops, a.mac_ratio, a.vec_ratio, a.scalar_ratio, a.mte2_ratio,
           a.mte3_ratio, a.read_bytes, a.write_bytes
    FROM agg a JOIN op_tasks l ON l.rowid=a.rid
  )sql")
      .bind(1, run_id)
      .run();
  // Without an op table (a trace_view.json or msprof timeline alone), the timeline's device
  // tasks stand for the ops: name, task type as core type, times; the name doubles as the type
  // and there are no shapes or counters. GPU kernels carry no "Task Type" and stay out.
  db.prepare(R"sql(
    WITH t AS (
      SELECT rank, name, json_extract(args, '$."Task Type"') AS core_type, dur_ns
      FROM device_events
      WHERE run_id=?1 AND kind='kernel' AND json_valid(args)
        AND json_extract(args, '$."Task Type"') IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM op_tasks WHERE run_id=?1)),
    total AS (SELECT sum(dur_ns) AS ns FROM t)
    INSERT INTO op_stats(run_id, rank, name, type, core_type, count, total_us, avg_us, min_us,
                         max_us, share)
    SELECT ?1, min(rank), name, name, core_type, count(*), sum(dur_ns)/1000.0, avg(dur_ns)/1000.0,
           min(dur_ns)/1000.0, max(dur_ns)/1000.0,
           CASE WHEN (SELECT ns FROM total) > 0 THEN sum(dur_ns)*1.0/(SELECT ns FROM total)
                ELSE 0 END
    FROM t GROUP BY name, core_type
  )sql")
      .bind(1, run_id)
      .run();
  // Per op type, from the per-name rows just written (one row per name, type and core type):
  // a second pass over every task would cost as much as the first. Only op-table runs have op
  // types; the timeline fallback above names no types.
  db.prepare(R"sql(
    INSERT INTO op_type_stats
    SELECT ?1, type, core_type, sum(count), count(*), sum(total_us), sum(total_us) / sum(count),
           max(max_us), sum(share)
    FROM op_stats WHERE run_id=?1 AND EXISTS (SELECT 1 FROM op_tasks WHERE run_id=?1)
    GROUP BY type, core_type
  )sql")
      .bind(1, run_id)
      .run();
  txn.commit();
}

}  // namespace perfsage::analyzers
