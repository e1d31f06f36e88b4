// The gpu analyzer: GPU time of Kineto traces: step windows (steps rows with source gpu_breakdown),
// per-stream busy time, launch and synchronisation statistics, per-name API totals, kernels grouped
// by launching op, the launching op of older traces' kernels (computed by core/launch_ops.cpp for
// this analyzer) and HTA's time breakdown per rank.
#include "analyzers/core/analyzer.h"

#include "analyzers/core/launch_ops.h"
#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/gpu/tables.h"

namespace perfsage::analyzers {

Analyzer gpu_analyzer() {
  namespace tables = gpu::tables;
  Analyzer a;
  a.name = "gpu";
  a.reads = {"host_events", "device_events", "steps"};
  a.writes = {tables::streams(),         tables::launch_stats(),     tables::api_totals(),
              kernel_launch_ops_table(), tables::kernel_groups(),    tables::time_breakdown(),
              tables::host_blocking(),   tables::queues(),           tables::collectives(),
              tables::range_counters(),  tables::collective_ranks(), tables::kernel_totals(),
              tables::copy_groups(),     tables::launch_profile()};
  a.adds_to = {"steps"};
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& /*resources*/) {
    gpu::analyze_gpu_run(db, run_id);
  };
  return a;
}

}  // namespace perfsage::analyzers
