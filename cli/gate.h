// --fail-on: turns a report into a CI verdict. A finding at or above the severity trips it
// (exit 3); so does a selected pack that errored or ran out of budget, or a run in which no
// input was recognised (exit 4), since a gate that cannot see must not pass. Each reason is
// said on `err`.
#pragma once

#include <ostream>

#include "perfsage/v1/finding.pb.h"
#include "perfsage/v1/report.pb.h"

namespace perfsage::cli {

// The exit code for the report (kExitOk when nothing trips the gate).
int apply_fail_on(const perfsage::v1::AnalysisReport& report, perfsage::v1::Severity threshold,
                  std::ostream& err);

// The help text listing severity names.
const char* severity_names();

}  // namespace perfsage::cli
