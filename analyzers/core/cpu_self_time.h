// Self time of CPU ops: an op's duration minus that of the ops nested in it on the same
// thread (nesting by time, as PyTorch's profiler tables and HTA's call stacks nest them), so
// that aten::linear -> aten::addmm -> aten::mm is counted once, where the work is. Written per
// op name to host_op_self; the host_op fact carries it (self_us, self_share).
#pragma once

#include <cstdint>

#include "store/database.h"

namespace perfsage::analyzers {

// Rebuilds host_op_self for the run from its cpu_op events; returns the op names written.
int64_t compute_cpu_self_time(store::Database& db, int64_t run_id);

}  // namespace perfsage::analyzers
