// GPU analyzers for one run (Kineto traces): per step and rank, how the GPU time splits into
// computation, communication, their overlap and idle time (store::Step rows with source
// "gpu_breakdown"); per step and stream busy times (gpu_streams); kernel launch and
// synchronisation statistics (gpu_launch_stats); kernels grouped by launching op (kernel_groups);
// the HTA-defined time breakdown per rank (gpu_time_breakdown).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "analyzers/core/launch_pass.h"
#include "analyzers/core/shared_passes.h"
#include "store/database.h"

namespace perfsage::analyzers::gpu {

struct GpuAnalysisOptions {
  int64_t short_kernel_ns = 10'000;   // kernels shorter than this are launch-bound
  int64_t slow_launch_ns = 50'000;    // launch API calls longer than this
  int64_t launch_delay_ns = 100'000;  // GPU start later than this after the launch call ended
  int64_t kernel_wait_ns = 30'000;    // shorter gaps between activities are launch overhead (HTA)
};

// The GPU analyzers (analyzer.cpp), each over `run_id` in its own transaction, replacing
// earlier results. Ranks without GPU activity get no GPU numbers (NULL), never zeros.
// Step windows and per-stream busy time (it adds rows to steps, so it runs on the store's
// connection, before the analyzers that read steps).
void analyze_gpu_steps(store::Database& db, int64_t run_id);
// Launch statistics, API totals and copies, kernel groups and totals and the launch profile. The
// launch pass comes from `passes` (analyze_run's), or is made here without.
void analyze_gpu_launches(store::Database& db, int64_t run_id, const GpuAnalysisOptions& opt = {},
                          SharedPasses* passes = nullptr);
// The launch links of kernels found through their launch call (kernel_launch_ops), from the
// launch pass.
void analyze_gpu_launch_links(store::Database& db, int64_t run_id, SharedPasses* passes = nullptr);
// HTA's time breakdown and queue depth, host blocking, collectives and range counters.
void analyze_gpu_timeline(store::Database& db, int64_t run_id, const GpuAnalysisOptions& opt = {});
// All four, one after another (for tests of the GPU tables).
void analyze_gpu_run(store::Database& db, int64_t run_id, const GpuAnalysisOptions& opt = {});

// The parts, each run inside the caller's transaction.
void compute_gpu_breakdown(store::Database& db, int64_t run_id);
void compute_launch_stats(store::Database& db, int64_t run_id, const GpuAnalysisOptions& opt);
// Per-rank temporal breakdown, comm/compute overlap and idle time by cause as HTA defines
// them, over the whole trace: gpu_time_breakdown; and from the same activities and launch
// calls, HTA's queue length per stream (queue_depth.cpp): gpu_queues.
void compute_time_breakdown(store::Database& db, int64_t run_id, const GpuAnalysisOptions& opt);
// What the launch fact needs beyond the kernels: filled by compute_api_totals from the same
// passes over the calls and copies, written by compute_kernel_groups (gpu_launch_profile).
// Per rank: summed memcpy and memset time; summed runtime/driver kernel-launch calls (a rank
// without any has no entry).
struct LaunchTotals {
  std::map<int64_t, int64_t> copy_ns;
  std::map<int64_t, int64_t> launch_api_ns;
};
// Kernels per (name, launching CPU op, op input types): kernel_groups; per name: kernel_totals;
// and the run's launch profile: gpu_launch_profile; from the launch pass.
void compute_kernel_groups(store::Database& db, int64_t run_id, const LaunchTotals& launches,
                           const LaunchPass& pass);
// Rebuilds api_totals (host API calls per rank and name) for the api fact and, from the same
// pass over the calls, copy_groups (copies and sets by issuing call) for the memcpy fact.
LaunchTotals compute_api_totals(store::Database& db, int64_t run_id);
// Calls that block the host (syncs, device-to-host and blocking copies) per rank, call, issuing
// op and Python frame, inside or outside the steps: host_blocking.
void compute_host_blocking(store::Database& db, int64_t run_id);
// Collective kernels per rank and type (AllReduce, SendRecv, ...): gpu_collectives; and, from
// the same kernels, each type aligned across ranks (waiting for the last rank vs transfer,
// the ranks' clock offsets removed): gpu_collective_ranks.
void compute_collectives(store::Database& db, int64_t run_id);
// gpu_collective_ranks again from the ranks' gpu_collective_spans instead of the events: the
// alignment of a cluster run assembled from rank extracts (docs/scale-out.md).
void align_collectives_of_ranks(store::Database& db, int64_t run_id);
// Counters of CUPTI range-profiler ranges per rank and range name: gpu_range_counters.
void compute_range_counters(store::Database& db, int64_t run_id);
// The collective type of a communication kernel from its "Collective name" argument or name.
std::string collective_type(std::string_view name, std::string_view args);

}  // namespace perfsage::analyzers::gpu
