// Pattern analyzer: matches the data-declared fusion patterns and finds TransData chains in
// the run's model graphs (or, without a graph, its device task sequence), joins the matched
// nodes to profiled time and writes fusion_candidates and transdata_chains; for graphs also
// the structural estimates and the inference-graph clean-ups (graph_cleanups).
#pragma once

#include <cstdint>
#include <vector>

#include "analyzers/patterns/pattern_spec.h"
#include "store/database.h"

namespace perfsage::analyzers {

struct PatternSummary {
  size_t candidates = 0, chains = 0, cleanups = 0;
  std::string source;  // graph | sequence | "" (nothing to match)
};

class SharedPasses;

// `passes`: where the op task pass comes from, shared with the roofline (null: made here).
PatternSummary analyze_patterns(store::Database& db, int64_t run_id,
                                const std::vector<patterns::Pattern>& patterns,
                                SharedPasses* passes = nullptr);

}  // namespace perfsage::analyzers
