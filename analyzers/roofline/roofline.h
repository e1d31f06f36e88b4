// Roofline analysis per Ascend op (counters from op_tasks, or shapes) and per GPU-launching
// CPU op (Kineto Input Dims joined to kernels through the External id). Writes roofline_ops.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/core/launch_pass.h"
#include "analyzers/core/shared_passes.h"
#include "analyzers/roofline/hardware_spec.h"
#include "store/database.h"

namespace perfsage::analyzers::roofline {

// msadvisor / msprof op: utilisation of the roof at or above 80 % is compute or memory bound,
// below it latency bound; a pipeline ratio below 80 % makes the latency "pipeline caused".
constexpr double kBoundUtilisation = 0.8;
constexpr double kPipeBound = 0.8;
// A point this far above its roof cannot be: its FLOP or byte count or the peak is wrong. It is
// stored as bound `invalid` with the reason, never as a point (5 % allows for rounded times).
constexpr double kAboveRoof = 1.05;

struct Point {
  double flops = 0, bytes = 0, seconds = 0;
  double peak_flops = 0, peak_bw = 0;
};

struct Verdict {
  double intensity = 0, ridge = 0, attainable = 0, achieved = 0, utilisation = 0;
  std::string bound;  // compute | memory | latency
};

Verdict classify(const Point& p);

// Rebuilds roofline_ops for the run from op_tasks and the GPU kernels; returns rows written.
int compute_roofline(store::Database& db, int64_t run_id, const HardwareSpec& hw);
// The same over a launch pass the caller shares with the activation chains and op groups
// (with their latest texts) it shares with op_stats.
int compute_roofline(store::Database& db, int64_t run_id, const HardwareSpec& hw,
                     const LaunchPass& pass, const std::vector<OpGroup>& ascend);

// Rebuilds the GPU points of roofline_ops (scopes gpu_op and kernel) from the ranks' tables
// (gpu_op_groups, kernel_groups, kernel_totals) instead of the events: the points of a cluster
// run assembled from rank extracts (docs/scale-out.md). Returns the rows written.
int compute_gpu_roofline_of_ranks(store::Database& db, int64_t run_id, const HardwareSpec& hw);
// Rebuilds the Ascend points of roofline_ops (scope op) and shape_alignment from the ranks'
// ascend_op_groups instead of the op tasks, for the same. Returns the rows written.
int compute_ascend_roofline_of_ranks(store::Database& db, int64_t run_id, const HardwareSpec& hw);
// Hardware spec, then roofline: the analyzer family's entry point for analyze_run. The launch
// pass, the op groups and the op task pass come from `passes` (analyze_run's), or are made here
// without.
void analyze_roofline(store::Database& db, int64_t run_id, const HardwareDb& hardware,
                      SharedPasses* passes = nullptr);

}  // namespace perfsage::analyzers::roofline
