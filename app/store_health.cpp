#include "app/store_health.h"

#include "store/schema.h"

namespace perfsage::app {

std::string store_damage(store::Database& db) {
  if (!db.prepare("SELECT 1 FROM runs LIMIT 1").step()) return {};
  std::string problems = db.integrity_problems();
  if (problems.empty()) return {};
  return "store " + db.path() +
         " is damaged (SQLite's quick_check: " + problems.substr(0, problems.find('\n')) +
         "): no new run is written into it, where it would share the damaged file; its stored "
         "runs can still be read (perfsage query, compare, analyze of stored inputs), and a new "
         "store takes new runs";
}

std::optional<std::string> save_results(store::Database& db, int64_t run_id, bool reused,
                                        const std::vector<store::PackResult>& packs,
                                        const std::vector<store::StoredFinding>& findings) {
  try {
    store::save_results(db, run_id, packs, findings);
    return std::nullopt;
  } catch (const store::StoreError& e) {
    if (!reused || !e.no_space()) throw;
  }
  // As for a write-protected store: TEMP tables of the same names, whose foreign keys could not
  // name the main database's runs (so they stay off on this connection).
  db.exec("PRAGMA foreign_keys=OFF");
  store::shadow_result_tables(db);
  store::save_results(db, run_id, packs, findings);
  return "the disk holding " + db.path() + " is full: this report of stored run " +
         std::to_string(run_id) +
         " is whole, but its findings were not stored again (free some space to keep them)";
}

std::string cut_store_log(const std::string& path) {
  return store::truncate_log(path, 2000);
}

}  // namespace perfsage::app
