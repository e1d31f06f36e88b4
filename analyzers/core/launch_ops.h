// The CPU op that launched each kernel, for traces whose kernels carry the launch's
// correlation id as their "External id" instead of the op's (PyTorch up to about 2.1; HTA's
// AlexNet sample: all 79 kernels). There the op is found as the kernel's runtime call
// (same correlation) and the innermost cpu_op on the same thread whose span contains that
// call, the way HTA's call stacks link them. Computed once per run into kernel_launch_ops by
// the GPU analyzer; the analyzers that group kernels by op read it through LaunchOps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "store/database.h"
#include "store/derived_tables.h"

namespace perfsage::analyzers {

// The kernel_launch_ops table (written by the GPU analyzer).
const store::DerivedTable& kernel_launch_ops_table();

// Rebuilds kernel_launch_ops for the run; returns the kernels' launches it resolved.
int64_t compute_launch_ops(store::Database& db, int64_t run_id);

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
struct LaunchingOp {
  std::string name;
  std::optional<std::string> dims, types;
};
using LaunchingOps = std::unordered_map<OpKey, LaunchingOp, OpKeyHash>;

// The cpu_ops with these keys, read from the blocks (a SQL `IN` over every CPU op of a big
// trace cost seconds); ops sharing a key keep the least of each field, as SQL's min() did.
LaunchingOps load_launching_ops(store::Database& db, int64_t run_id,
                                const std::unordered_set<OpKey, OpKeyHash>& keys);

class LaunchOps {
 public:
  LaunchOps(store::Database& db, int64_t run_id);
  // The External id that identifies a kernel's CPU op: its own, unless it is the correlation
  // id and the launch resolved to an op.
  int64_t op_id(int64_t rank, int64_t external_id, std::optional<int64_t> correlation) const;

 private:
  struct KeyHash {
    size_t operator()(const std::pair<int64_t, int64_t>& k) const {
      return mix_ids(k.first, k.second);
    }
  };
  std::unordered_map<std::pair<int64_t, int64_t>, int64_t, KeyHash> by_correlation_;
};

}  // namespace perfsage::analyzers
