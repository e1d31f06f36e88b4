// What a run comparison compares per name (app/run_comparison.h), read from the derived tables
// the analyzers keep: per kind, each name's count, time and bytes summed over ranks.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "store/database.h"

namespace perfsage::app {

struct NameTotal {
  int64_t count = 0;
  double us = 0;
  int64_t bytes = 0;  // memcpy only
};
using NameTotals = std::map<std::string, NameTotal>;

// Kinds, in the order a comparison lists them: op (the Ascend op table; an Ascend run's
// timeline kernels are the same tasks, so kernel only for runs without one), kernel (GPU
// kernels, kernel_totals), cpu_op (CPU self time, host_op_self, without the profiler's
// ProfilerStep#N step annotations), memcpy (GPU copies by copy kind and sets, copy_groups),
// runtime (CUDA runtime and driver calls, api_totals).
inline constexpr const char* kComparedKinds[] = {"op", "kernel", "cpu_op", "memcpy", "runtime"};

std::map<std::string, NameTotals> compared_totals(store::Database& db, int64_t run);

// A copy's kind from its activity name and recorded copy kind: "HtoD", "DtoH", "DtoD", "HtoH",
// "PtoP", ... (the first word of the copy kind, else the word after "Memcpy" in the name),
// "memset" for sets, "memcpy" when neither says.
std::string copy_kind(const std::string& kind, const std::string& name,
                      const std::string& memcpy_kind);

}  // namespace perfsage::app
