// A rank's GPU activities (kernels, copies, sets) read from the store's blocks, classified as
// the GPU analyzers need them: computation, communication (collective kernels), copy, set.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "store/database.h"

namespace perfsage::analyzers::gpu {

enum class Class { compute, comm, copy, set };

struct DeviceSpan {
  int64_t start, end;
  std::optional<int64_t> device, stream, correlation;
  Class cls;
};

// NCCL/RCCL kernel names, or kernels carrying Kineto's "Collective name" argument. The SQL twin
// of this test is the run fact's `comm` CTE (engine/facts/types_run.cpp).
bool is_comm_kernel(std::string_view name, std::string_view args);

// Every kernel, copy and set of `rank` in `run`, unsorted.
std::vector<DeviceSpan> load_device_spans(store::Database& db, int64_t run, int64_t rank);

}  // namespace perfsage::analyzers::gpu
