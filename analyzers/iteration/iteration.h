// Iteration, cluster and schedule analyzers: derive the tables behind the `iteration`,
// `rank`, `gpu_activity` and `schedule` fact types from one run's raw records.
#pragma once

#include <cstdint>
#include <vector>

namespace perfsage::store {
class Database;
}

namespace perfsage::analyzers::iteration {

// Per rank, sums of one step source's breakdown (iteration_ranks). The source is chosen per
// rank by preference: step_trace_time, ProfilerStep, gpu_breakdown, cluster_step_trace_time,
// anything else with a breakdown; rows of several sources are never added together.
void compute_rank_balance(store::Database& db, int64_t run_id);

// GPU activity per (rank, device): union of kernel/memcpy/memset intervals over the window
// from the first to the last activity, idle gaps and low-utilisation chunks (gpu_activity).
struct GpuActivityOptions {
  int64_t gap_threshold_ns = 500'000'000;  // Nsight Systems gpu_gaps default: 500 ms
  int chunks = 30;                         // Nsight Systems gpu_time_util default chunk count
  double low_chunk_utilisation = 0.5;      // ... and its threshold, 50 %
};
void compute_gpu_activity(store::Database& db, int64_t run_id, const GpuActivityOptions& opt = {});

// Host schedule per rank: compile-and-execute calls, stream synchronisations and their
// co-occurrence with Node@launch, memory APIs (iteration_schedule).
void compute_schedule(store::Database& db, int64_t run_id);

// All of the above; called from analyze_run.
void analyze_iteration(store::Database& db, int64_t run_id);

// Interval helper (exposed for tests): merges [start, end) intervals sorted or not and
// returns them disjoint and in order.
struct Interval {
  int64_t start, end;
};
std::vector<Interval> merge_intervals(std::vector<Interval> v);

}  // namespace perfsage::analyzers::iteration
