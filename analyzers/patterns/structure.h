// Structural estimates for model graphs without a profile (msadvisor's model-only advice):
// what share of the graph's work a change removes, from tensor bytes when every compute node
// records its output bytes, else from node counts; and the inference-graph clean-ups the
// onnx_rewrite passes perform (docs/actions.md), found from the structure alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/patterns/op_graph.h"

namespace perfsage::analyzers::patterns {

// Data, constants, variables and graph outputs move no data at run time.
bool compute_node(const OpNode& n);

struct GraphSize {
  int64_t compute_nodes = 0;
  int64_t out_bytes = 0;     // summed output bytes of the compute nodes
  bool bytes_known = false;  // every compute node recorded its output bytes
};
GraphSize graph_size(const OpGraph& g);

// The share of the graph's work a change removes: the output bytes it no longer writes (and
// reads back) over all compute nodes' output bytes when they are known, else the nodes it
// removes over the compute nodes. Each output is written once and read at least once, so the
// byte ratio stands for the traffic ratio.
struct StructuralEstimate {
  int64_t bytes = -1;  // output bytes removed; -1 when unknown
  double share = 0;
};
StructuralEstimate estimate(const OpGraph& g, const GraphSize& size,
                            const std::vector<size_t>& removed);

struct Cleanup {
  std::string kind;           // identity, dropout, transpose_identity, transpose_inverse,
                              // cast_round_trip, fold_batchnorm
  std::string pass;           // the onnx_rewrite pass that performs it
  std::vector<size_t> nodes;  // the nodes it concerns (a Cast pair, Conv + BN, ...)
  std::vector<size_t> removed;
  std::string detail;  // e.g. "FLOAT>FLOAT16>FLOAT", "perm [0,2,1,3] then [0,2,1,3]"
  bool exact = true;   // false: removing it changes the outputs (precision)
};

// Clean-ups an inference graph can take. Only what the structure proves: a Cast round trip
// needs the input type (recorded, or carried by type-preserving ops from a graph input or a
// Cast), Transposes need their permutations, folding BatchNormalization an ONNX graph in
// inference form (one output) whose Conv output has no other reader.
std::vector<Cleanup> find_cleanups(const OpGraph& g);

}  // namespace perfsage::analyzers::patterns
