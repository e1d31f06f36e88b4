// The GPU analyzers of Kineto traces, four so that they run beside each other (and beside the
// other analyzers) on the machine's cores:
//  * gpu: step windows (steps rows with source gpu_breakdown) and per-stream busy time;
//  * gpu_launches: launch and synchronisation statistics, per-name API totals and copies,
//    kernels grouped by launching op and per name, the launch profile;
//  * launch_links: the launching op of older traces' kernels (core/launch_ops.h), written on
//    the store's connection;
//  * gpu_timeline: HTA's time breakdown and queue depth per rank, calls blocking the host,
//    collectives and their alignment across ranks, range counters.
#include "analyzers/core/analyzer.h"

#include "analyzers/core/launch_ops.h"
#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/gpu/tables.h"

namespace perfsage::analyzers {

Analyzer gpu_analyzer() {
  Analyzer a;
  a.name = "gpu";
  a.reads = {"host_events", "device_events", "steps"};
  a.writes = {gpu::tables::streams()};
  a.adds_to = {"steps"};
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& /*resources*/) {
    gpu::analyze_gpu_steps(db, run_id);
  };
  return a;
}

Analyzer gpu_launches_analyzer() {
  namespace tables = gpu::tables;
  Analyzer a;
  a.name = "gpu_launches";
  a.reads = {"host_events", "device_events"};
  a.writes = {tables::launch_stats(),  tables::api_totals(),  tables::kernel_groups(),
              tables::kernel_totals(), tables::copy_groups(), tables::launch_profile()};
  a.uses_launch_pass = true;
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& resources) {
    gpu::analyze_gpu_launches(db, run_id, {}, resources.passes);
  };
  return a;
}

Analyzer gpu_launch_links_analyzer() {
  Analyzer a;
  a.name = "launch_links";
  a.reads = {"host_events", "device_events"};
  a.writes = {kernel_launch_ops_table()};
  a.uses_launch_pass = true;
  a.on_store = true;  // a row per kernel launched through its call: 426 k in a 1 GB trace
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& resources) {
    gpu::analyze_gpu_launch_links(db, run_id, resources.passes);
  };
  return a;
}

Analyzer gpu_timeline_analyzer() {
  namespace tables = gpu::tables;
  Analyzer a;
  a.name = "gpu_timeline";
  // steps: the ProfilerStep windows host blocking is counted in or out of.
  a.reads = {"host_events", "device_events", "steps"};
  a.writes = {tables::time_breakdown(),   tables::queues(),        tables::host_blocking(),
              tables::collectives(),      tables::comm_kernels(),  tables::collective_ranks(),
              tables::collective_spans(), tables::range_counters()};
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& /*resources*/) {
    gpu::analyze_gpu_timeline(db, run_id);
  };
  return a;
}

}  // namespace perfsage::analyzers
