// Ingests files into a test store without the analysis service: the collectors, the op
// statistics analyzer (what the aoe kind reads) and the run's framework as analyze_run records
// it. Kept to the layers actions/ reads, so these tests do not depend on the front ends.
#pragma once

#include <filesystem>
#include <vector>

#include "analyzers/core/op_stats.h"
#include "analyzers/core/tables.h"
#include "collectors/ingest.h"
#include "store/derived_tables.h"
#include "store/run_writer.h"

namespace perfsage::test {

inline int64_t ingest_for_actions(store::Database& db,
                                  const std::vector<std::filesystem::path>& inputs,
                                  const std::string& job = "test",
                                  const std::string& created = "2024-01-01T00:00:00Z") {
  auto files = collectors::expand_inputs(inputs);
  std::vector<std::string> names;
  for (const auto& p : inputs) names.push_back(std::filesystem::absolute(p).string());
  store::RunWriter writer(db, {job, names, collectors::fingerprint_inputs(files), created});
  auto result = collectors::ingest(files, writer, collectors::Mode::strict);
  writer.commit();
  int64_t run = writer.run_id();
  // The analyzer's tables as analyze_run brings them to their declared shape (the migrations
  // make only the older ones).
  namespace tables = analyzers::tables;
  store::ensure_derived_tables(db, {tables::op_stats(), tables::op_type_stats(),
                                    tables::op_block_dims(), tables::op_name_totals()});
  analyzers::compute_op_stats(db, run);
  db.prepare("UPDATE runs SET framework = ?2 WHERE id = ?1")
      .bind(1, run)
      .bind(2, result.hints.framework)
      .run();
  return run;
}

}  // namespace perfsage::test
