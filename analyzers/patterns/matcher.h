// Finds the occurrences of data-declared patterns in an OpGraph.
#pragma once

#include <vector>

#include "analyzers/patterns/op_graph.h"
#include "analyzers/patterns/pattern_spec.h"

namespace perfsage::analyzers::patterns {

struct Match {
  const Pattern* pattern = nullptr;  // the declared pattern (not the optional-free variant)
  std::vector<size_t> nodes;         // graph node per matched pattern node, in pattern order
  bool fused = false;                // some member was already produced by a fusion pass
};

// Every occurrence of every pattern (optional chain elements expanded; an occurrence that is
// a subset of a larger occurrence of the same pattern is dropped). Patterns that are not
// chains are skipped on sequences. At most `limit` matches per pattern.
std::vector<Match> find_matches(const OpGraph& g, const std::vector<Pattern>& patterns,
                                size_t limit = 2000);

}  // namespace perfsage::analyzers::patterns
