// FLOP models of the operators that dominate LLM training, from their shapes alone (no
// attributes: op tables and traces do not record transpose flags or input_layout). Each model
// either is sure of its count or says why not; a caller plots no point for an op it is not
// sure of (docs/packs/roofline.md lists the models and their hand-checked values).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyzers/roofline/flop_model.h"

namespace perfsage::analyzers::roofline {

struct Flops {
  double flops = 0;
  double out_numel = 0;  // elements written, when the model knows them
  double head_dim = 0;   // attention: D, when the layout is known
  std::string why;       // empty when sure
  bool ok() const { return why.empty(); }
};

// MatMul / BatchMatMul (Ascend: transposes unknown, found from the shapes and the output
// shape; batch dimensions broadcast) and the aten matmuls (fixed semantics: mm, bmm, matmul,
// addmm, baddbmm, linear). `a`, `b` are the two operands, bias removed.
Flops matmul_flops(const std::string& lower_type, const Shape& a, const Shape& b,
                   const std::vector<Shape>& outputs);

// GroupedMatmul: x [M, K] (or a list of [Mi, K]), weight [E, K, N] or [E, N, K] (or a list of
// [K, N]); each row of x goes through one expert: 2 * M * K * N.
Flops grouped_matmul_flops(const std::vector<Shape>& inputs, const std::vector<Shape>& outputs);

// FlashAttention forward (4 * B * N * Sq * Sk * D) and backward (2.5 times that), in every
// input_layout (BSH, SBH, BNSD, BSND, TND), the layout inferred from the softmax statistics
// ([B, N, S, 8], or [T, N, 8] for TND) among the inputs or outputs, else from an attention mask
// of [B, 1, Sq, Sk] / [Sq, Sk]; a compressed 2048 x 2048 causal mask with longer sequences
// halves the count. torch's scaled_dot_product_attention ([B, N, S, D]) and
// _flash_attention_forward ([B, S, N, D]) have fixed layouts.
Flops attention_flops(const std::string& lower_type, const std::vector<Shape>& inputs,
                      const std::vector<Shape>& outputs);

}  // namespace perfsage::analyzers::roofline
