// One pass over a run's kernels and one over its CPU ops, shared by the GPU roofline (the ops
// that launched kernels, grouped by name and shapes) and the activation chains (each CPU op's
// kernel time): each made both passes itself, and built the launch links twice.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyzers/core/launch_ops.h"
#include "store/database.h"
#include "store/text_hash.h"

namespace perfsage::analyzers::roofline {

// Texts interned once per run: names and shapes repeat as often as the events.
class TextIds {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t id(std::string_view text);
  const std::string& text(uint32_t id) const { return *texts_[id]; }
  size_t size() const { return texts_.size(); }

 private:
  std::unordered_map<std::string, uint32_t, store::TextHash, std::equal_to<>> ids_;
  std::vector<const std::string*> texts_;
};

// One op instance (rank, External id) that launched kernels.
struct KernelInstance {
  int64_t dur_ns = 0, longest = -1;
  uint32_t kernel = 0;  // its longest kernel's name (the first of equally long ones)
  bool has_op = false;  // a cpu_op carries this key
  LaunchingOp op;       // its name, dims and types: the least of each among ops sharing the key
};

struct LaunchPass {
  TextIds kernel_names;
  std::unordered_map<OpKey, KernelInstance, OpKeyHash> instances;
  struct Kernel {
    const KernelInstance* instance;  // null when the kernel has no External id
    uint32_t name;
    int64_t dur_ns;
  };
  std::vector<Kernel> kernels;  // in scan order
  int64_t kernel_ns = 0;        // every kernel's time

  // Every CPU op, per (rank, tid) by start (ties in row order), with its kernels' time when it
  // launched any, else its own.
  struct CpuOp {
    int64_t rank, tid, start, end;  // host span
    uint32_t name;
    uint32_t dims;  // Input Dims where `wants_dims` asked for them, else kNone
    int64_t ns;
  };
  TextIds op_names, op_dims;
  std::vector<CpuOp> cpu_ops;
};

// Reads the kernels (with the launch links of launch_ops.h), then the CPU ops. `wants_dims` is
// asked once per distinct op name whether that op's input dims are kept.
LaunchPass read_launches(store::Database& db, int64_t run_id,
                         const std::function<bool(const std::string& op_name)>& wants_dims);

}  // namespace perfsage::analyzers::roofline
