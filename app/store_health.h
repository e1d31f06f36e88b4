// What a store in trouble still allows. A store whose file SQLite finds damaged takes no new
// run (writing into it spreads the damage; its stored runs can still be read); a full disk must
// not stop a stored run from being read and reported again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"
#include "store/results.h"

namespace perfsage::app {

// Empty when a new run may be written into `db`; else why not: the store holds runs and
// SQLite's quick_check of the file fails (a new, empty store is not checked).
std::string store_damage(store::Database& db);

// Stores the results of evaluating run `run_id`. When the run was already stored (`reused`)
// and the disk is full, they are kept for this connection only (TEMP tables in memory: the
// report is whole, nothing is written) and the returned notice says so; other failures throw.
std::optional<std::string> save_results(store::Database& db, int64_t run_id, bool reused,
                                        const std::vector<store::PackResult>& packs,
                                        const std::vector<store::StoredFinding>& findings);

// Copies the store's write-ahead log into its file and cuts it to nothing (waiting at most
// 2 s for other connections): for a long-running process that is done with the store, whose
// last connection to close may be a reader that cannot. Returns why it could not, or empty.
std::string cut_store_log(const std::string& path);

}  // namespace perfsage::app
