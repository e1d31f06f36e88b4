// A run's op tasks aggregated per (rank, name, type, core type) in one scan and a hash map. SQLite
// answers GROUP BY by sorting every row and copying its text into the sorter: for a 1 M-row op
// table that sort took op_stats 2 s and the roofline 2.9 s, while the groups number a few
// hundred to a few thousand.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"

namespace perfsage::analyzers {

// SQL's sum() and avg() over a nullable column: NULL when no row had a value.
struct NullableSum {
  double sum = 0;
  int64_t n = 0;
  void add(double v) {
    sum += v;
    ++n;
  }
  std::optional<double> total() const { return n > 0 ? std::optional<double>(sum) : std::nullopt; }
  std::optional<double> mean() const {
    return n > 0 ? std::optional<double>(sum / static_cast<double>(n)) : std::nullopt;
  }
};

enum Pipe { kMac, kVec, kScalar, kMte1, kMte2, kMte3, kFixpipe, kPipes };

struct OpGroup {
  std::string name, type, core_type;
  int64_t rank = 0;  // merged groups (merge_ranks): the lowest
  int64_t count = 0, sum_ns = 0;
  int64_t min_ns = std::numeric_limits<int64_t>::max(), max_ns = 0;
  std::optional<int64_t> block_dim;  // the largest
  NullableSum cube_fops, vector_fops, read_bytes, write_bytes;
  NullableSum ratio[kPipes];  // pipeline ratios, averaged over the tasks that have one
  int64_t latest_rowid = 0;   // the group's last task in the rank
  // Tasks with an OP State (not empty), their summed time, and whether one was dynamic or
  // static (ASCII case folded, as SQL's lower()).
  int64_t state_tasks = 0, state_ns = 0;
  bool dynamic = false, is_static = false;
  // The last task's shapes, data types, formats and state (fill_latest_texts).
  std::optional<std::string> input_shapes, input_dtypes, input_formats, output_shapes,
      output_dtypes, output_formats, op_state;
};

struct BlockDimGroup;

// The groups of each rank, by rank, then longest total first (ties by name, type, core type:
// no order from the hash). A rank's groups do not depend on the other ranks' tasks. With
// `block_dims`, the same pass also gives what group_block_dims gives.
std::vector<OpGroup> group_op_tasks(store::Database& db, int64_t run_id,
                                    std::vector<BlockDimGroup>* block_dims = nullptr);

// The ranks' groups (texts filled) merged per (name, type, core type): counts, times and
// counter sums added, minima and maxima kept, the texts of the lowest rank holding the op;
// longest total first as above. One rank's groups come back unchanged.
std::vector<OpGroup> merge_ranks(const std::vector<OpGroup>& ranks);

// Reads the texts of each group's latest task, one pass over the blocks holding them.
void fill_latest_texts(store::Database& db, std::vector<OpGroup>& groups);

// Tasks with a block dim above 0 per (rank, core type, name, block dim), as op_block_dims rows:
// each rank's groups in their order of first appearance.
struct BlockDimGroup {
  int64_t rank = 0;
  std::string core_type, name;
  int64_t block_dim = 0, tasks = 0, dur_ns = 0;
};

}  // namespace perfsage::analyzers
