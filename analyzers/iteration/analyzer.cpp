// The iteration analyzer: Per-rank step breakdown, GPU activity and host-side schedule statistics.
#include "analyzers/core/analyzer.h"

#include "analyzers/iteration/iteration.h"

namespace perfsage::analyzers {

Analyzer iteration_analyzer() {
  Analyzer a;
  a.name = "iteration";
  a.reads = {"steps", "host_events", "device_events"};
  a.writes.push_back({"iteration_ranks", R"sql(
CREATE TABLE iteration_ranks(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, source TEXT NOT NULL, steps INTEGER NOT NULL,
  dur_us REAL, computing_us REAL, comm_us REAL, comm_not_overlapped_us REAL, overlapped_us REAL,
  free_us REAL, dataloader_us REAL, optimizer_us REAL);
CREATE INDEX iteration_ranks_run ON iteration_ranks(run_id);
)sql"});
  a.writes.push_back({"device_activity", R"sql(
CREATE TABLE device_activity(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, device INTEGER, activities INTEGER NOT NULL,
  window_us REAL, busy_us REAL, utilisation REAL, gap_threshold_us REAL, gaps INTEGER,
  gap_total_us REAL, longest_gap_us REAL, chunks INTEGER, low_chunks INTEGER,
  low_chunk_threshold REAL);
)sql"});
  a.writes.push_back({"iteration_schedule", R"sql(
CREATE TABLE iteration_schedule(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, compile_execute_calls INTEGER,
  compile_execute_us REAL, op_compile_calls INTEGER, op_compile_us REAL, sync_calls INTEGER,
  sync_us REAL, launch_calls INTEGER, sync_after_launch INTEGER, memory_calls INTEGER,
  memory_us REAL);
)sql"});
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& /*resources*/) {
    iteration::analyze_iteration(db, run_id);
  };
  return a;
}

}  // namespace perfsage::analyzers
