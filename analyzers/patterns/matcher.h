// Finds the occurrences of data-declared patterns in an OpGraph.
#pragma once

#include <vector>

#include "analyzers/patterns/op_graph.h"
#include "analyzers/patterns/pattern_spec.h"

namespace perfsage::analyzers::patterns {

struct Match {
  const Pattern* pattern = nullptr;  // the declared pattern (not the optional-free variant)
  std::vector<size_t> nodes;         // graph node per matched pattern node, in pattern order
  bool fused = false;                // its own members were already merged (merged_members)
};

// True when members of one occurrence were merged with each other: two of them share a UB
// fusion scope, one lists another among its original ops, or one was produced by the
// pattern's own pass. A member fused with nodes outside the occurrence does not count: a
// first convolution fused with its BN and ReLU still has the TransData in front of it.
bool merged_members(const OpGraph& g, const Pattern& p, const std::vector<size_t>& nodes);

// Every occurrence of every pattern (optional chain elements expanded; an occurrence that is
// a subset of a larger occurrence of the same pattern is dropped). Patterns that are not
// chains are skipped on sequences. At most `limit` matches per pattern.
std::vector<Match> find_matches(const OpGraph& g, const std::vector<Pattern>& patterns,
                                size_t limit = 2000);

}  // namespace perfsage::analyzers::patterns
