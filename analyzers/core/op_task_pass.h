// One pass over a run's op tasks, in row order, for the analyzers that walk them task by task:
// the ranks' totals, the patterns' per-rank task sequences and op times, and the roofline's
// Ascend activation chains. Each read the same million tasks from the blocks and hashed their
// texts; now the blocks are decoded once and each distinct text is interned once per block
// dictionary entry.
// Made once per analysis (shared_passes.h).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "store/database.h"
#include "store/text_ids.h"

namespace perfsage::analyzers {

struct OpTaskPass {
  static constexpr uint32_t kNone = store::TextIds::kNone;
  static constexpr int64_t kNoStart = std::numeric_limits<int64_t>::min();

  struct Task {
    int64_t rank;            // 0 when NULL (rank_null says so), as a block reads it
    int64_t device, stream;  // -1 when NULL
    int64_t start;           // kNoStart when NULL
    int64_t dur_ns;          // 0 when NULL
    int64_t wait_ns;         // 0 when NULL
    int64_t rowid;
    // Texts (ids into `texts`). Name and type as the block reads them, NULL or not (the ingest
    // always sets them); the others kNone when NULL.
    uint32_t name, type, core_type, input_formats, output_formats, input_shapes;
    bool rank_null, dur_null, wait_null, name_null;
  };

  store::TextIds texts;
  std::vector<Task> tasks;  // in row order
};

OpTaskPass read_op_task_pass(store::Database& db, int64_t run_id);

}  // namespace perfsage::analyzers
