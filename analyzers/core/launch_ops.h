// The CPU op that launched each kernel, for traces whose kernels carry the launch's
// correlation id as their "External id" instead of the op's (PyTorch up to about 2.1; HTA's
// AlexNet sample: all 79 kernels). There the op is found as the kernel's runtime call
// (same correlation) and the innermost cpu_op on the same thread whose span contains that
// call, the way HTA's call stacks link them. Computed once per run by the launch pass
// (launch_pass.h); the GPU analyzer stores the links in kernel_launch_ops.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "store/database.h"
#include "store/derived_tables.h"

namespace perfsage::analyzers {

// The kernel_launch_ops table (written by the GPU analyzer).
const store::DerivedTable& kernel_launch_ops_table();

// A launching CPU op instance: (rank, External id).
struct OpKey {
  int64_t rank = 0, id = 0;
  bool operator==(const OpKey&) const = default;
  bool operator<(const OpKey& o) const { return rank != o.rank ? rank < o.rank : id < o.id; }
};
// Two 64-bit ids mixed in unsigned arithmetic: ids are arbitrary trace values, and a signed
// product overflows (undefined behaviour) on the Ascend sample's large ones.
inline size_t mix_ids(int64_t a, int64_t b) {
  return std::hash<uint64_t>{}(static_cast<uint64_t>(a) * 1000003u + static_cast<uint64_t>(b));
}
struct OpKeyHash {
  size_t operator()(const OpKey& k) const { return mix_ids(k.id, k.rank); }
};

// A host span the nesting reads: a cpu_op (id: its External id) or a launch call (id: its
// correlation); pid and tid -1 where the trace has none.
struct HostSpan {
  int64_t rank, pid, tid, start, end, id;
};
// A launch call's correlation and the External id of the op it nests in.
struct LaunchLink {
  int64_t rank, correlation, op_external_id;
};

// Each call nested in the innermost op of its thread that contains it, threads in (rank, pid,
// tid) order, each by start. Ops are nested by start, at one start the longer (the outer) first,
// and alike ops in the order given (the profiler writes the outer one first), so that the later
// of two ops with the same span is the inner one; at one start an op comes before a call.
std::vector<LaunchLink> nest_launch_calls(std::vector<HostSpan> ops, std::vector<HostSpan> calls);

// Rebuilds kernel_launch_ops for the run from the launch pass's links.
void write_launch_ops(store::Database& db, int64_t run_id, const std::vector<LaunchLink>& links);

}  // namespace perfsage::analyzers
