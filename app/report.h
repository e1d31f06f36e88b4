// The report of a run, built from what the store holds (so the report a user reads is the
// stored form, reproducible byte for byte): run summary, ingest summary, pack outcomes, ranked
// findings and the base every gain and share is measured against.
#pragma once

#include <cstdint>
#include <string>

#include "perfsage/v1/report.pb.h"
#include "store/database.h"

namespace perfsage::app {

perfsage::v1::AnalysisReport build_report(store::Database& db, int64_t run_id);
// Sets each evidence value's unit and its text as the text report prints it ("34.7 %").
void describe_evidence(perfsage::v1::Finding& finding);
perfsage::v1::Run build_run(store::Database& db, int64_t run_id);
perfsage::v1::Base build_base(store::Database& db, int64_t run_id);
// The run's input files that a collector read (0: nothing was recognised).
int64_t recognised_inputs(store::Database& db, int64_t run_id);
// What to tell a user whose run had nothing recognised: how many files, and that no pack ran.
std::string nothing_recognised_notice(store::Database& db, int64_t run_id);

// Protobuf's JSON mapping with the proto's field names, every field printed, two-space indent.
std::string to_json(const google::protobuf::Message& message);

}  // namespace perfsage::app
