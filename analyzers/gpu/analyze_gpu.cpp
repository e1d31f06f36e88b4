// The GPU analyzers' parts in the order each runs them, each part timed in the --verbose log.
#include <memory>

#include "analyzers/core/launch_ops.h"
#include "analyzers/core/timed_part.h"
#include "analyzers/gpu/gpu_analysis.h"

namespace perfsage::analyzers::gpu {
namespace {

template <typename F>
void timed(const char* part, F&& f) {
  timed_part("gpu", part, f);
}

}  // namespace

void analyze_gpu_steps(store::Database& db, int64_t run_id) {
  store::Transaction txn(db);
  timed("breakdown", [&] { compute_gpu_breakdown(db, run_id); });
  txn.commit();
}

void analyze_gpu_launches(store::Database& db, int64_t run_id, const GpuAnalysisOptions& opt,
                          SharedPasses* passes) {
  store::Transaction txn(db);
  timed("launch_stats", [&] { compute_launch_stats(db, run_id, opt); });
  LaunchTotals launches;
  timed("api_totals and copy_groups", [&] { launches = compute_api_totals(db, run_id); });
  // Last: the roofline, running beside this analyzer, may be making the pass meanwhile.
  std::shared_ptr<const LaunchPass> pass;
  timed("launch pass", [&] { pass = launch_pass(passes, db, run_id); });
  timed("kernel_groups, kernel_totals and launch_profile",
        [&] { compute_kernel_groups(db, run_id, launches, *pass); });
  txn.commit();
}

void analyze_gpu_launch_links(store::Database& db, int64_t run_id, SharedPasses* passes) {
  store::Transaction txn(db);
  std::shared_ptr<const LaunchPass> pass;
  timed("launch pass", [&] { pass = launch_pass(passes, db, run_id); });
  timed("launch_ops", [&] { write_launch_ops(db, run_id, pass->links); });
  txn.commit();
}

void analyze_gpu_timeline(store::Database& db, int64_t run_id, const GpuAnalysisOptions& opt) {
  store::Transaction txn(db);
  timed("time_breakdown and queue_depth", [&] { compute_time_breakdown(db, run_id, opt); });
  timed("host_blocking", [&] { compute_host_blocking(db, run_id); });
  timed("collectives and their alignment", [&] { compute_collectives(db, run_id); });
  timed("range_counters", [&] { compute_range_counters(db, run_id); });
  txn.commit();
}

void analyze_gpu_run(store::Database& db, int64_t run_id, const GpuAnalysisOptions& opt) {
  analyze_gpu_steps(db, run_id);
  analyze_gpu_launches(db, run_id, opt);
  analyze_gpu_launch_links(db, run_id);
  analyze_gpu_timeline(db, run_id, opt);
}

}  // namespace perfsage::analyzers::gpu
