// Builds the report of a run from the store (the proto schema in proto/perfsage/v1) and renders
// it as JSON (protobuf's JSON mapping) or as readable text.
#pragma once

#include <cstdint>
#include <string>

#include "perfsage/v1/report.pb.h"
#include "store/database.h"

namespace perfsage::cli {

perfsage::v1::AnalysisReport build_report(store::Database& db, int64_t run_id);
perfsage::v1::Run build_run(store::Database& db, int64_t run_id);

std::string to_json(const google::protobuf::Message& message);
std::string render_text(const perfsage::v1::AnalysisReport& report);
std::string render_ingest_text(const perfsage::v1::IngestReport& report);

// Severity order used for ranking and --fail-on: critical > high > medium > low > info.
int severity_rank(const std::string& severity);

}  // namespace perfsage::cli
