// Each rank's span, device totals, HCCL task time per name and host collective calls
// (rank_totals, hccl_totals, host_collective_calls), from one pass over the event blocks: what
// the run fact, every fact's wall span and the host_comm fact read instead of the events. Per
// rank, so that a cluster run's rows are its ranks' rows (docs/scale-out.md).
#pragma once

#include <cstdint>

#include "store/database.h"

namespace perfsage::analyzers {

class SharedPasses;

// `passes`: where the op task pass comes from, shared with the patterns and the roofline
// (null: made here).
void compute_rank_totals(store::Database& db, int64_t run_id, SharedPasses* passes = nullptr);

}  // namespace perfsage::analyzers
