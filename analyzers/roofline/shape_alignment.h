// Shape alignment of cube operators (msprof-analyze's AICorePerformanceChecker shape
// affinity): the contiguous (last) axis of each MatMul operand should be a multiple of 512
// bytes (256 FP16/BF16 elements, 128 FP32, 512 INT8), and a FlashAttention head dim a multiple
// of 128. Misaligned ops are written to shape_alignment with the padded size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/core/op_groups.h"
#include "store/database.h"

namespace perfsage::analyzers::roofline {

struct Misalignment {
  std::string name, type, kind;  // kind: matmul_inner | attention_head_dim
  std::string dim;               // which axis, e.g. "x1 inner axis"
  int64_t value = 0, multiple = 0, padded = 0;
  int64_t count = 0;
  double total_us = 0;
  std::string shapes;
};

// The misaligned axes of one op group (its latest task's shapes, types and formats); none when
// the op is not a cube op or its shapes cannot be read with certainty.
std::vector<Misalignment> check_alignment(const OpGroup& g);

void write_alignment(store::Database& db, int64_t run_id, const std::vector<Misalignment>& rows);

}  // namespace perfsage::analyzers::roofline
