// TransData chains: format conversions worth removing (msadvisor TransData identification,
// knowledge.md §2.6). Works on graphs (edges) and task sequences (next tasks on a stream).
#pragma once

#include <string>
#include <vector>

#include "analyzers/patterns/op_graph.h"

namespace perfsage::analyzers::patterns {

struct TransDataChain {
  // round_trip        X->Y then Y->X within a few ops (4D<->5HD, ND<->NZ): redundant pair
  // reshape_interrupt the pair is split by a Reshape-class op that cannot keep the private format
  // 5hd_nz            conversion between the two private formats
  // nd_nz             single ND<->NZ conversion (not part of a pair)
  // 4d_5hd            single 4D<->5HD conversion (usually legitimate, e.g. before Conv2D)
  // unknown           TransData without recorded formats
  std::string kind;
  std::vector<size_t> nodes;      // the TransData nodes (and the ops between them)
  std::vector<size_t> transdata;  // the TransData nodes only (their time is the cost)
  std::string formats;            // e.g. "NCHW>NC1HWC0>NCHW"
  std::string culprit;            // reshape_interrupt: the interrupting op
};

bool is_transdata(const std::string& type);
bool is_reshape_class(const std::string& type);

// Chains of one view. `window` = most ops allowed between the two TransData of a pair.
std::vector<TransDataChain> find_transdata_chains(const OpGraph& g, size_t window = 3);

}  // namespace perfsage::analyzers::patterns
