// Fusion candidates whose conditions depend on tensor shapes, found from a model graph alone:
// MatMul + bias Add (graph fusion MatMulBiasAddFusionPass; on ONNX the Gemm rewrite) and chains
// of element-wise ops (UB fusion TbeEltwiseFusionPass). Only what the recorded shapes prove:
// a shape that is not recorded, not static, or (GE) not in the ND format gives no candidate.
#pragma once

#include <string>
#include <vector>

#include "analyzers/patterns/op_graph.h"

namespace perfsage::analyzers::patterns {

struct ShapeFusion {
  std::string pattern;        // matmul_bias_add or eltwise_chain
  std::string kind;           // graph_fusion or ub_eltwise
  std::string pass;           // the CANN fusion pass
  std::vector<size_t> nodes;  // in data-flow order
  std::vector<size_t> kept;   // nodes whose outputs fusion keeps on chip
  std::string detail;         // shapes and element type, e.g. "[32,512] + bias [512], FLOAT16"
  std::string rewrite;        // onnx_rewrite pass that performs it on the ONNX model, or ""
  bool fused = false;         // its members were already merged (a build graph)
};

// Element-wise ops of TbeEltwiseFusionPass (msprof-analyze op_fusion_pass.yaml's Elementwise
// list, with the GE spellings of division and the scalar forms).
bool elementwise_op(const std::string& type);

// A MatMul family node (MatMul/BatchMatMul V1-V3) whose only reader is an Add/BiasAdd whose
// other input is a bias of shape [N] or [1,..,1,N], N the last dimension of the product; a
// MatMul/MatMulV2/MatMulV3 product must be 2-D.
std::vector<ShapeFusion> find_matmul_bias_adds(const OpGraph& g);

// Maximal chains of element-wise ops of static shape where each member but the last has the
// next as its only reader, cut into runs of at most six (what one fused kernel takes); runs of
// two or more. Adds taken by `bias_adds` (folded into their MatMul first) are left out.
std::vector<ShapeFusion> find_eltwise_chains(const OpGraph& g,
                                             const std::vector<ShapeFusion>& bias_adds);

}  // namespace perfsage::analyzers::patterns
