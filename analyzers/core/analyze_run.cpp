#include "analyzers/core/analyze_run.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "analyzers/core/op_stats.h"
#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/iteration/iteration.h"
#include "analyzers/patterns/analyze_patterns.h"
#include "analyzers/roofline/roofline.h"

namespace perfsage::analyzers {
namespace {
// Runs one analyzer and logs its time (visible with --verbose): the way to find the slow one.
template <typename F>
void timed(const char* name, F&& f) {
  auto start = std::chrono::steady_clock::now();
  f();
  spdlog::debug(
      "analyzer {}: {:.1f} ms", name,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
}
}  // namespace

store::RunSummary analyze_run(store::Database& db, int64_t run_id, const RunIdentity& identity,
                              const AnalyzerResources& resources) {
  timed("op_stats", [&] { compute_op_stats(db, run_id); });
  // The GPU step breakdown feeds the iteration analyzer's step sources.
  timed("gpu", [&] { gpu::analyze_gpu_run(db, run_id); });
  timed("iteration", [&] { iteration::analyze_iteration(db, run_id); });
  timed("patterns", [&] { analyze_patterns(db, run_id, resources.patterns); });
  timed("roofline", [&] { roofline::analyze_roofline(db, run_id, resources.hardware); });
  store::RunSummary summary;
  timed("summary", [&] { summary = summarize_run(db, run_id, identity); });
  return summary;
}

}  // namespace perfsage::analyzers
