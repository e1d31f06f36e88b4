// One run as the daemon's API and the HTML report show it: its summary row, stored report and
// chart data (perfsage.v1.RunDetail).
#pragma once

#include <cstdint>

#include "app/result.h"
#include "perfsage/v1/api.pb.h"
#include "store/database.h"
#include "store/run_index.h"

namespace perfsage::app {

perfsage::v1::RunSummary run_summary(const store::RunRow& row);

// A usage error when the store has no such run.
Result<perfsage::v1::RunDetail> load_run_detail(store::Database& db, int64_t run_id);

}  // namespace perfsage::app
