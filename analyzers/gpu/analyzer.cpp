// The gpu analyzer: GPU time of Kineto traces: step windows (steps rows with source gpu_breakdown),
// per-stream busy time, launch and synchronisation statistics, per-name API totals, kernels grouped
// by launching op, the launching op of older traces' kernels (computed by core/launch_ops.cpp for
// this analyzer) and HTA's time breakdown per rank.
#include "analyzers/core/analyzer.h"

#include "analyzers/gpu/gpu_analysis.h"

namespace perfsage::analyzers {

Analyzer gpu_analyzer() {
  Analyzer a;
  a.name = "gpu";
  a.reads = {"host_events", "device_events", "steps"};
  a.writes.push_back({"gpu_streams", R"sql(
CREATE TABLE gpu_streams(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, step INTEGER NOT NULL, device INTEGER,
  stream INTEGER, kernels INTEGER NOT NULL, compute_us REAL NOT NULL, comm_us REAL NOT NULL,
  memcpy_us REAL NOT NULL, memset_us REAL NOT NULL, busy_us REAL NOT NULL, idle_us REAL NOT NULL);
CREATE INDEX gpu_streams_run ON gpu_streams(run_id);
)sql"});
  a.writes.push_back({"gpu_launch_stats", R"sql(
CREATE TABLE gpu_launch_stats(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, launches INTEGER NOT NULL,
  launch_cpu_us REAL NOT NULL, launch_avg_us REAL, slow_launches INTEGER NOT NULL,
  linked INTEGER NOT NULL, delay_avg_us REAL, delay_max_us REAL, delayed INTEGER NOT NULL,
  kernels INTEGER NOT NULL, short_kernels INTEGER NOT NULL, short_kernel_us REAL NOT NULL,
  sync_calls INTEGER NOT NULL, sync_us REAL NOT NULL, device_sync_calls INTEGER NOT NULL,
  stream_sync_calls INTEGER NOT NULL, event_sync_calls INTEGER NOT NULL,
  wait_event_calls INTEGER NOT NULL, gpu_sync_events INTEGER NOT NULL,
  gpu_sync_us REAL NOT NULL);
)sql"});
  a.writes.push_back({"api_totals", R"sql(
CREATE TABLE api_totals(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, name TEXT NOT NULL, calls INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, max_ns INTEGER NOT NULL);
CREATE INDEX api_totals_run ON api_totals(run_id);
)sql"});
  a.writes.push_back({"kernel_launch_ops", R"sql(
CREATE TABLE kernel_launch_ops(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, correlation INTEGER NOT NULL,
  op_external_id INTEGER NOT NULL);
CREATE INDEX kernel_launch_ops_run ON kernel_launch_ops(run_id);
)sql"});
  a.writes.push_back({"kernel_groups", R"sql(
CREATE TABLE kernel_groups(
  run_id INTEGER NOT NULL, name TEXT NOT NULL, op TEXT, types TEXT, kernels INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, occ_ns REAL, occ_weight INTEGER, bps_sum REAL, bps_n INTEGER NOT NULL);
CREATE INDEX kernel_groups_run ON kernel_groups(run_id);
)sql"});
  a.writes.push_back({"gpu_time_breakdown", R"sql(
CREATE TABLE gpu_time_breakdown(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, window_us REAL NOT NULL, busy_us REAL NOT NULL,
  compute_us REAL NOT NULL, comm_us REAL NOT NULL, overlap_us REAL NOT NULL, idle_us REAL NOT NULL,
  streams INTEGER NOT NULL, gaps INTEGER NOT NULL, host_wait_us REAL NOT NULL,
  kernel_wait_us REAL NOT NULL, other_wait_us REAL NOT NULL, kernel_wait_cutoff_us REAL NOT NULL);
CREATE INDEX gpu_time_breakdown_run ON gpu_time_breakdown(run_id);
)sql"});
  a.writes.push_back({"host_blocking", R"sql(
CREATE TABLE host_blocking(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, kind TEXT NOT NULL, call TEXT NOT NULL,
  op TEXT NOT NULL, top_op TEXT NOT NULL, python TEXT NOT NULL, in_step INTEGER,
  calls INTEGER NOT NULL, dur_ns INTEGER NOT NULL, max_ns INTEGER NOT NULL);
CREATE INDEX host_blocking_run ON host_blocking(run_id);
)sql"});
  a.writes.push_back({"gpu_queues", R"sql(
CREATE TABLE gpu_queues(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, device INTEGER, stream INTEGER,
  activities INTEGER NOT NULL, unlinked INTEGER NOT NULL, graph_launched INTEGER NOT NULL,
  busy_us REAL NOT NULL, window_us REAL NOT NULL, max_depth INTEGER NOT NULL,
  median_depth REAL NOT NULL, mean_depth REAL NOT NULL, zero_share REAL);
CREATE INDEX gpu_queues_run ON gpu_queues(run_id);
)sql"});
  a.writes.push_back({"gpu_collectives", R"sql(
CREATE TABLE gpu_collectives(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, type TEXT NOT NULL, kernels INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, bytes REAL);
CREATE INDEX gpu_collectives_run ON gpu_collectives(run_id);
)sql"});
  a.writes.push_back({"gpu_range_counters", R"sql(
CREATE TABLE gpu_range_counters(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, name TEXT NOT NULL, ranges INTEGER NOT NULL,
  replay_ns INTEGER NOT NULL, flops_fp16 REAL, flops_fp32 REAL, flops_fp64 REAL,
  tensor_insts REAL, dram_bytes REAL);
CREATE INDEX gpu_range_counters_run ON gpu_range_counters(run_id);
)sql"});
  a.writes.push_back({"gpu_collective_ranks", R"sql(
CREATE TABLE gpu_collective_ranks(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, type TEXT NOT NULL, aligned INTEGER NOT NULL,
  unaligned INTEGER NOT NULL, wait_ns INTEGER NOT NULL, transfer_ns INTEGER NOT NULL,
  last_count INTEGER NOT NULL, clock_offset_ns INTEGER NOT NULL);
CREATE INDEX gpu_collective_ranks_run ON gpu_collective_ranks(run_id);
)sql"});
  a.adds_to = {"steps"};
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& /*resources*/) {
    gpu::analyze_gpu_run(db, run_id);
  };
  return a;
}

}  // namespace perfsage::analyzers
