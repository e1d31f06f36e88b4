// The roofline analyzer: The run's hardware spec, Roofline points per Ascend op and per
// GPU-launching op, activation chains and unaligned cube shapes.
#include "analyzers/core/analyzer.h"

#include "analyzers/roofline/roofline.h"

namespace perfsage::analyzers {

Analyzer roofline_analyzer() {
  Analyzer a;
  a.name = "roofline";
  a.reads = {"runs",        "hardware",    "op_tasks",    "device_events",
             "host_events", "graph_nodes", "graph_edges", "kernel_launch_ops"};
  a.writes.push_back({"hardware_specs", R"sql(
CREATE TABLE hardware_specs(
  run_id INTEGER NOT NULL, part TEXT, match TEXT NOT NULL, candidates TEXT, family TEXT,
  cube_cores REAL, vector_cores REAL, sm_count REAL, freq_mhz REAL, memory_gib REAL,
  l2_mib REAL, compute_major INTEGER, peak_fp32 REAL, peak_tf32 REAL, peak_fp16 REAL,
  peak_bf16 REAL, peak_int8 REAL, peak_vector REAL, bandwidth REAL, cores_source TEXT,
  freq_source TEXT, peak_source TEXT, bw_source TEXT, note TEXT, vendor TEXT, arch TEXT,
  isa TEXT, matrix_fp16 TEXT, matrix_bf16 TEXT, matrix_tf32 TEXT, matrix_fp8 TEXT);
)sql"});
  a.writes.push_back({"roofline_ops", R"sql(
CREATE TABLE roofline_ops(
  run_id INTEGER NOT NULL, scope TEXT NOT NULL, name TEXT NOT NULL, type TEXT, core_type TEXT,
  count INTEGER, total_us REAL, share REAL, flops REAL, bytes REAL, flops_source TEXT,
  bytes_source TEXT, precision TEXT, peak_flops REAL, peak_bw REAL, ridge REAL, intensity REAL,
  attainable REAL, achieved REAL, utilisation REAL, roof_us REAL, bound TEXT NOT NULL,
  cause TEXT, dominant_pipe TEXT, pipe_ratio REAL, kernel TEXT, reason TEXT);
CREATE INDEX roofline_ops_run ON roofline_ops(run_id);
)sql"});
  a.writes.push_back({"activation_patterns", R"sql(
CREATE TABLE activation_patterns(
  run_id INTEGER NOT NULL, pattern TEXT NOT NULL, source TEXT NOT NULL, instances INTEGER,
  ops_per_instance INTEGER, total_us REAL, share REAL, example TEXT);
)sql"});
  a.writes.push_back({"shape_alignment", R"sql(
CREATE TABLE shape_alignment(
  run_id INTEGER NOT NULL, name TEXT NOT NULL, type TEXT, kind TEXT NOT NULL, dim TEXT,
  value INTEGER NOT NULL, multiple INTEGER NOT NULL, padded INTEGER NOT NULL, count INTEGER,
  total_us REAL, shapes TEXT);
CREATE INDEX shape_alignment_run ON shape_alignment(run_id);
)sql"});
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& resources) {
    roofline::analyze_roofline(db, run_id, resources.hardware);
  };
  return a;
}

}  // namespace perfsage::analyzers
