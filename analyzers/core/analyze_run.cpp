#include "analyzers/core/analyze_run.h"

#include <spdlog/spdlog.h>

#include <chrono>

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

store::RunRecord analyze_run(store::Database& db, int64_t run_id, const RunIdentity& identity,
                              const AnalyzerResources& resources) {
  store::ensure_derived_tables(db, derived_tables());
  for (const Analyzer& a : analyzers())
    timed(a.name.c_str(), [&] { a.run(db, run_id, resources); });
  store::RunRecord summary;
  timed("summary", [&] { summary = compute_run_totals(db, run_id, identity); });
  return summary;
}

}  // namespace perfsage::analyzers
