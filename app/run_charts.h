// The data behind a run's charts, read from the store: the step breakdown (a chart per step
// source, one stacked bar per step and rank, or per run of consecutive steps when there are
// more than the chart holds) and the Roofline (roofs of the run's hardware, one point per op
// that has both FLOPs and bytes, and why the others have none). Shared by the daemon's API and
// the HTML report.
#pragma once

#include <cstdint>

#include "perfsage/v1/api.pb.h"
#include "store/database.h"

namespace perfsage::app {

// At most `max_bars` bars a chart (a long run's steps are averaged in consecutive groups) and
// `max_points` points (the ops with the most time). Throws store::StoreError when the store
// cannot be read.
perfsage::v1::RunCharts load_run_charts(store::Database& db, int64_t run_id, int max_bars = 200,
                                        int max_points = 300);

}  // namespace perfsage::app
