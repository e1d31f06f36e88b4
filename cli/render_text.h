// The readable text form of reports: run, inputs, packs, then the ranked findings with their
// ids, evidence in units people read and the base of every gain. Findings of one rule beyond
// the first few are summarised in one line (the JSON report keeps all of them).
#pragma once

#include <string>

#include "perfsage/v1/report.pb.h"

namespace perfsage::cli {

// How many findings of one rule are shown in full before the rest are summarised.
constexpr int kShownPerRule = 3;

std::string render_text(const perfsage::v1::AnalysisReport& report);
std::string render_ingest_text(const perfsage::v1::AnalysisReport& report);

}  // namespace perfsage::cli
