// A run's catalog extract (docs/scale-out.md, "The catalog"): what the API, the reports, the
// charts and `compare` read about one run — its row, ingest summary, pack results, findings,
// every derived table and its action plans, applies and verdicts — without the event data.
// Shared-mode daemons publish it to PostgreSQL when a job ends; every daemon imports the
// extracts into a local catalog replica (a store file of the same schema) that its API reads,
// so any daemon answers for any run.
//
// The extract is a small SQLite database of the same tables (only that run's rows), serialised
// and compressed; importing reads the columns both sides know, so daemons one schema version
// apart still exchange runs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace perfsage::store {
class Database;

// The counts of a run's events for runs whose events are elsewhere (an imported or assembled
// run): run_counts(run_id, ops, kernels), which the run summary reads before the events.
void ensure_run_counts(Database& db);

// Tables with a run_id column that stay in the local store: the event data and the model
// graphs, which only the analysis reads.
const std::vector<std::string>& local_only_tables();

// The extract of run `run_id` of `db` (zlib-compressed serialised SQLite). Throws StoreError.
std::string extract_run(Database& db, int64_t run_id);

// Where an imported run came from: the daemon (instance) and its store's run id.
struct RunOrigin {
  std::string instance;
  int64_t local_run_id = 0;
};

// Imports an extract into `replica` as run `catalog_id`, replacing what the replica held of
// that run (a run published again after an action). Run ids inside the extract (the run's own,
// an action verdict's earlier run) are the origin's; an earlier run of the same origin is
// mapped through what the replica imported before, else left 0. Throws StoreError when the
// extract is damaged; the replica is then unchanged.
void import_run(Database& replica, int64_t catalog_id, const RunOrigin& origin,
                const std::string& extract);

// The replica's run id of an origin's run, when imported.
std::optional<int64_t> imported_run(Database& replica, const RunOrigin& origin);

// The same for the rows that get the replica's own ids ("action_plans", "action_applies",
// "action_audit"; "runs" as above), and the way back: the origin of a replica id.
std::optional<int64_t> imported_id(Database& replica, const std::string& kind,
                                   const std::string& instance, int64_t local_id);
std::optional<RunOrigin> origin_of_imported(Database& replica, const std::string& kind, int64_t id);

}  // namespace perfsage::store
