// A job's findings across its runs (first and last seen, gain trend), from the stored findings
// (a finding's id is stable across runs of a job). Two runs side by side: app/run_comparison.h.
#pragma once

#include <vector>

#include "perfsage/v1/api.pb.h"
#include "store/run_index.h"

namespace perfsage::daemon {

// `runs` oldest first; `rows` are the findings of those runs.
perfsage::v1::JobHistory build_history(const std::string& job,
                                       const std::vector<store::RunRow>& runs,
                                       const std::vector<store::FindingRow>& rows);

// new (seen only in the latest run), resolved (not in the latest run), else rising / falling /
// steady: the latest gain share against the first one seen, ±10 %.
std::string gain_trend(const std::vector<double>& shares, bool in_latest, bool only_latest);

}  // namespace perfsage::daemon
