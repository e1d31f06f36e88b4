// The op_stats analyzer: Per-op statistics of Ascend device tasks: per op name (op_stats), per op
// type (op_type_stats) and tasks per block dim (op_block_dims).
#include "analyzers/core/analyzer.h"
#include "analyzers/core/op_stats.h"

namespace perfsage::analyzers {

Analyzer op_stats_analyzer() {
  Analyzer a;
  a.name = "op_stats";
  a.reads = {"op_tasks"};
  a.writes.push_back({"op_stats", R"sql(
CREATE TABLE op_stats(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT 0, name TEXT NOT NULL,
  type TEXT NOT NULL, core_type TEXT NOT NULL, count INTEGER NOT NULL, total_us REAL NOT NULL,
  avg_us REAL NOT NULL, min_us REAL NOT NULL, max_us REAL NOT NULL, share REAL NOT NULL,
  block_dim INTEGER, input_shapes TEXT, input_dtypes TEXT, input_formats TEXT,
  output_shapes TEXT, output_dtypes TEXT, output_formats TEXT, op_state TEXT,
  cube_fops REAL, vector_fops REAL, mac_ratio REAL, vec_ratio REAL, scalar_ratio REAL,
  mte2_ratio REAL, mte3_ratio REAL, read_bytes REAL, write_bytes REAL);
CREATE INDEX op_stats_run ON op_stats(run_id);
)sql"});
  a.writes.push_back({"op_type_stats", R"sql(
CREATE TABLE op_type_stats(
  run_id INTEGER NOT NULL, type TEXT NOT NULL, core_type TEXT NOT NULL, count INTEGER NOT NULL,
  ops INTEGER NOT NULL, total_us REAL NOT NULL, avg_us REAL NOT NULL, max_us REAL NOT NULL,
  share REAL NOT NULL);
)sql"});
  a.writes.push_back({"op_block_dims", R"sql(
CREATE TABLE op_block_dims(
  run_id INTEGER NOT NULL, core_type TEXT NOT NULL, name TEXT NOT NULL,
  block_dim INTEGER NOT NULL, tasks INTEGER NOT NULL, dur_ns INTEGER NOT NULL);
CREATE INDEX op_block_dims_run ON op_block_dims(run_id);
)sql"});
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& /*resources*/) {
    compute_op_stats(db, run_id);
  };
  return a;
}

}  // namespace perfsage::analyzers
