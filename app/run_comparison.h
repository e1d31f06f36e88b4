// Two stored runs side by side (perfsage.v1.RunComparison, docs/compare.md): step time and its
// breakdown (whole run, and per rank when a run has several), the ops / kernels / CPU ops whose
// time changed most, and the findings that appeared, disappeared or changed. Deltas are b - a.
// Shared by `perfsage compare` and the daemon's GET /api/v1/compare.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/result.h"
#include "perfsage/v1/api.pb.h"
#include "store/database.h"
#include "store/run_index.h"

namespace perfsage::app {

enum class OpOrder {
  per_step,  // by |step_delta_us| when both runs have steps, else by |total_delta_us|
  total,     // by |total_delta_us|
};

struct CompareOptions {
  int top = 10;  // ops kept per kind (op, kernel, cpu_op); at least 1
  OpOrder order = OpOrder::per_step;
};

// A usage error naming the run when the store has no such run; a store error when it cannot be
// read.
Result<perfsage::v1::RunComparison> compare_runs(store::Database& db, int64_t a, int64_t b,
                                                 const CompareOptions& options = {});

// The findings part alone: each finding id of either run, appeared / disappeared / changed /
// unchanged, in that order (b's ranking within each group, a's for the disappeared).
std::vector<perfsage::v1::FindingChange> compare_findings(const std::vector<store::FindingRow>& fa,
                                                          const std::vector<store::FindingRow>& fb);

// The stored finding's title (its rule when the payload cannot be read).
std::string finding_title(const store::FindingRow& row);

}  // namespace perfsage::app
