// Limits for one pack evaluation: wall time, CLIPS memory and rule firings.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace perfsage::engine {

struct Budget {
  std::chrono::milliseconds time{10000};          // asserting facts + running rules
  std::size_t memory_bytes = 512u * 1024 * 1024;  // as reported by EnvMemUsed
  int64_t max_firings = 100000;                   // EnvRun limit
};

}  // namespace perfsage::engine
