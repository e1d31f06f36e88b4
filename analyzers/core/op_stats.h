// Per-op-name and per-op-type statistics of the Ascend device tasks of one run.
#pragma once

#include <cstdint>

#include "store/database.h"

namespace perfsage::analyzers {

class SharedPasses;

// Rebuilds op_stats, op_type_stats and op_block_dims for the run from op_tasks (idempotent).
// `passes`: where the op groups come from, shared with the roofline (null: made here).
void compute_op_stats(store::Database& db, int64_t run_id, SharedPasses* passes = nullptr);

}  // namespace perfsage::analyzers
