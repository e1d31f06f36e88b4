// The one tolerance of the read side: when a finding's gain share has moved between two runs.
// A job's history (rising / falling trend, app/job_history.h) and a run comparison (changed
// findings, app/run_comparison.h) both ask here, so both say "moved" for the same two numbers.
// A comparison asks the same of a finding's measure (its evidence numbers) when the finding
// has no gain.
#pragma once

#include <string>
#include <vector>

namespace perfsage::app {

// A gain share that moved by more than this fraction of the earlier one has moved.
inline constexpr double kGainShareTolerance = 0.1;

enum class ShareMove { steady, rising, falling };

// `to` against `from`: rising above from * (1 + tolerance), falling below from * (1 - tolerance),
// else steady (a 1e-12 margin keeps equal values steady through rounding).
ShareMove share_move(double from, double to);

// A finding's trend over a job's runs: new (seen only in the latest run), resolved (not in the
// latest run), else rising / falling / steady: the latest gain share against the first one seen.
// `shares` oldest first, one per run the finding was seen in.
std::string gain_trend(const std::vector<double>& shares, bool in_latest, bool only_latest);

}  // namespace perfsage::app
