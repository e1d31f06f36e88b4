// One pass over a run's kernels and one over its CPU ops (and its runtime calls, where kernels
// are linked through them: launch_ops.h), shared by the analyzers that link kernels to the CPU
// op that launched them: the GPU analyzer (kernel_launch_ops, kernel groups and totals, the
// launch profile) and the roofline (launching ops grouped by name and shapes, each CPU op's
// kernel time for the activation chains). They made these passes three times a run, and built
// the launch links three times. Made once per analysis (shared_passes.h).
#pragma once

#include <cstdint>
#include <vector>

#include "analyzers/core/launch_ops.h"
#include "store/database.h"
#include "store/text_ids.h"

namespace perfsage::analyzers {

struct LaunchPass {
  static constexpr uint32_t kNone = store::TextIds::kNone;

  // One op instance (rank, External id) that launched kernels.
  struct Instance {
    OpKey key;
    int64_t dur_ns = 0, longest = -1;
    uint32_t kernel = 0;  // its longest kernel's name (the first of equally long ones)
    bool has_op = false;  // a cpu_op carries this key
    // The least name, dims and types among the cpu_ops with this key, as SQL's min() did
    // (op_texts; kNone: none of them has one).
    uint32_t name = kNone, dims = kNone, types = kNone;
  };
  struct Kernel {
    const Instance* instance;  // null when the kernel has no External id
    int64_t rank;
    int64_t dur_ns;
    double occupancy, blocks_per_sm;
    int64_t registers;
    uint32_t name;
    bool has_occupancy, has_blocks_per_sm, has_registers;
  };
  // A CPU op in its thread's sequence, with its kernels' time when it launched any, else its own.
  struct CpuOp {
    int64_t rank, tid, start, end;  // host span; tid 0 where the trace has none
    uint32_t name, dims;            // op_texts; dims kNone without input dims
    int64_t ns;
  };

  store::TextIds kernel_names;
  store::TextIds op_texts;          // CPU ops' names, input dims and input types
  std::vector<Instance> instances;  // in the order of their first kernel
  std::vector<Kernel> kernels;      // in scan order
  int64_t kernel_ns = 0;            // every kernel's time
  std::vector<CpuOp> cpu_ops;       // per (rank, tid) by start, ties in row order
  std::vector<LaunchLink> links;    // for kernel_launch_ops, per thread by start
};

// Reads the kernels, the CPU ops and, when some kernel names its launch call, the runtime calls.
LaunchPass read_launch_pass(store::Database& db, int64_t run_id);

}  // namespace perfsage::analyzers
