// A job's findings across its runs (first and last seen, gain per run, trend), from the stored
// findings: a finding's id is stable across runs of a job. The trend's tolerance is the one of
// app/gain_tolerance.h. Two runs side by side: app/run_comparison.h.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/store_types.h"
#include "perfsage/v1/api.pb.h"
#include "store/run_index.h"

namespace perfsage::app {

// The history over the job's newest `last_runs` runs, oldest first; nullopt when the job has
// no runs. Runs in `in_progress` (being analysed now, their findings not stored yet) are left out:
// they would show every finding resolved.
std::optional<perfsage::v1::JobHistory> job_history(Database& db, const std::string& job,
                                                    int last_runs,
                                                    const std::set<int64_t>& in_progress = {});

// The history of `runs` (oldest first) from `rows`, the findings of those runs.
perfsage::v1::JobHistory build_history(const std::string& job,
                                       const std::vector<store::RunRow>& runs,
                                       const std::vector<store::FindingRow>& rows);

}  // namespace perfsage::app
