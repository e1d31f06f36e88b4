// The shipped hardware specs and fusion patterns for tests that run analyzers, loaded from the
// source tree by path (what app/ gives the analyzers in a real run), and the analysis itself.
#pragma once

#include "analyzers/core/analyze_run.h"
#include "analyzers/core/analyzer.h"
#include "analyzers/patterns/pattern_spec.h"
#include "analyzers/roofline/hardware_db.h"
#include "store/database.h"
#include "store/derived_tables.h"
#include "test_support.h"

namespace perfsage::test {

inline const analyzers::roofline::HardwareDb& shipped_hardware() {
  static const auto db =
      analyzers::roofline::HardwareDb::load(source_dir() / "knowledge_bases" / "hardware");
  return db;
}

inline const std::vector<analyzers::patterns::Pattern>& shipped_patterns() {
  static const auto p =
      analyzers::patterns::load_patterns(source_dir() / "knowledge_bases" / "patterns");
  return p;
}

// A store as the application opens one: every derived table in its declared shape. A fresh
// store has the tables the migrations once made in their old shapes; analyze_run brings them to
// the declarations, but tests that call one analyzer or fact query directly must start here.
class AnalysisStore : public store::Database {
 public:
  explicit AnalysisStore(const std::string& path = ":memory:") : store::Database(path) {
    store::ensure_derived_tables(*this, analyzers::derived_tables());
  }
};

// Runs the real analyzers over a run written by a test, as an ingest does: facts read what
// they derive.
inline void analyze(store::Database& db, int64_t run_id, analyzers::RunIdentity identity = {}) {
  analyzers::analyze_run(db, run_id, identity, {shipped_hardware(), shipped_patterns()});
}

}  // namespace perfsage::test
