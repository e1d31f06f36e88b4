#include "app/pack_testing.h"

#include "analyzers/core/analyze_run.h"
#include "app/knowledge.h"
#include "collectors/ingest.h"
#include "store/run_writer.h"

namespace perfsage::app {

engine::PackTestOptions pack_test_options(const Knowledge& knowledge, const Limits& limits) {
  engine::PackTestOptions opts;
  opts.catalog = fact_catalog();
  opts.budget = limits.pack_budget;
  opts.ingest = [](store::Database& db, const std::filesystem::path& path) {
    auto files = collectors::expand_inputs({path});
    store::RunHeader header{
        "fixture", {path.string()}, collectors::fingerprint_inputs(files), "1970-01-01T00:00:00Z"};
    store::RunWriter writer(db, header);
    collectors::ingest(files, writer, collectors::Mode::strict);
    writer.commit();
  };
  opts.analyze = [&knowledge](store::Database& db, int64_t run_id) {
    analyzers::analyze_run(db, run_id, {}, {knowledge.hardware, knowledge.patterns});
  };
  return opts;
}

PackTestRun test_packs(const Knowledge& knowledge, const Limits& limits) {
  PackTestRun out;
  auto opts = pack_test_options(knowledge, limits);
  for (const auto& compiled : knowledge.packs.packs) {
    auto report = engine::run_pack_tests(compiled.pack, opts);
    if (!compiled.valid) report.problems.insert(report.problems.begin(), compiled.error);
    (report.ok() ? out.passed : out.failed) += 1;
    out.reports.push_back(std::move(report));
  }
  return out;
}

}  // namespace perfsage::app
