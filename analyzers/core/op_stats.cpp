#include "analyzers/core/op_stats.h"

namespace perfsage::analyzers {

void compute_op_stats(store::Database& db, int64_t run_id) {
  store::Transaction txn(db);
  db.prepare("DELETE FROM op_stats WHERE run_id=?1").bind(1, run_id).run();
  db.prepare("DELETE FROM op_type_stats WHERE run_id=?1").bind(1, run_id).run();
  // Shapes, dtypes and formats of an op name rarely change between executions; the most recent
  // execution's values stand for the op (the rowid ordering keeps this deterministic).
  db.prepare(R"sql(
    WITH total AS (SELECT sum(dur_ns) AS ns FROM op_tasks WHERE run_id=?1),
    last AS (
      SELECT name, type, core_type, max(rowid) AS rid FROM op_tasks WHERE run_id=?1
      GROUP BY name, type, core_type)
    INSERT INTO op_stats
    SELECT ?1, min(t.rank), t.name, t.type, t.core_type, count(*),
           sum(t.dur_ns)/1000.0, avg(t.dur_ns)/1000.0, min(t.dur_ns)/1000.0, max(t.dur_ns)/1000.0,
           CASE WHEN (SELECT ns FROM total) > 0
                THEN sum(t.dur_ns)*1.0/(SELECT ns FROM total) ELSE 0 END,
           max(t.block_dim), l.input_shapes, l.input_dtypes, l.input_formats, l.output_shapes,
           l.output_dtypes, l.output_formats, l.op_state,
           sum(t.cube_fops), sum(t.vector_fops), avg(t.mac_ratio), avg(t.vec_ratio),
           avg(t.scalar_ratio), avg(t.mte2_ratio), avg(t.mte3_ratio), sum(t.read_bytes),
           sum(t.write_bytes)
    FROM op_tasks t
    JOIN last k ON k.name=t.name AND k.type=t.type AND k.core_type=t.core_type
    JOIN op_tasks l ON l.rowid=k.rid
    WHERE t.run_id=?1
    GROUP BY t.name, t.type, t.core_type
  )sql").bind(1, run_id).run();
  db.prepare(R"sql(
    WITH total AS (SELECT sum(dur_ns) AS ns FROM op_tasks WHERE run_id=?1)
    INSERT INTO op_type_stats
    SELECT ?1, type, core_type, count(*), count(DISTINCT name), sum(dur_ns)/1000.0,
           avg(dur_ns)/1000.0, max(dur_ns)/1000.0,
           CASE WHEN (SELECT ns FROM total) > 0
                THEN sum(dur_ns)*1.0/(SELECT ns FROM total) ELSE 0 END
    FROM op_tasks WHERE run_id=?1 GROUP BY type, core_type
  )sql").bind(1, run_id).run();
  txn.commit();
}

}  // namespace perfsage::analyzers
