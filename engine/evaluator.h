// Evaluates a pack set over one run of the store.
//
//   auto loaded = perfsage::engine::load_pack_set(selection);
//   auto ev = perfsage::engine::evaluate(db, run_id, loaded.set);
//   store::save_results(db, run_id, ev.packs, ev.recommendations);
//
// Each pack runs in a fresh sandboxed CLIPS environment holding only the fact types it
// lists in `uses`, under the budget; a pack that fails or exceeds its budget gets status
// error / budget_exceeded and the others still run. Recommendations are ranked by
// severity, then estimated gain, with duplicates (same pack, rule and subjects) removed.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/clips/budget.h"
#include "engine/facts/registry.h"
#include "engine/kb/selection.h"
#include "store/database.h"
#include "store/results.h"

namespace perfsage::engine {

struct Evaluation {
  std::vector<store::PackResult> packs;
  std::vector<store::Recommendation> recommendations;  // ranked
};

// `fact_threads`: connections that query the packs' fact types side by side (1 = the caller's
// connection only).
Evaluation evaluate(store::Database& db, int64_t run_id, const PackSet& packs,
                    const Budget& budget = {}, unsigned fact_threads = 2);

// Where facts come from: the store for a run, or inline facts in pack tests.
using FactSource = std::function<std::vector<facts::SlotValues>(const facts::FactType&)>;

// Evaluates one compiled pack. `ref_time_us` is the denominator of default shares (the
// run fact's ref_time_us; 0 = unknown); `device` the run's device symbol for applies_to.
struct PackEvaluation {
  store::PackResult result;
  std::vector<store::Recommendation> recommendations;
  // Findings dropped because the same rule already reported the same subjects (a rule that
  // fires once per matching list item, say); pack tests treat any as a defect.
  int64_t duplicates = 0;
};
PackEvaluation evaluate_pack(const CompiledPack& pack, const FactSource& source, double ref_time_us,
                             const std::string& device, const Budget& budget = {});

// Severity from a gain share: >= 5 % high, >= 3 % medium, else low.
std::string severity_from_share(double share);
// Sorts by severity then gain (descending) and removes duplicates.
void rank(std::vector<store::Recommendation>& recs);

}  // namespace perfsage::engine
