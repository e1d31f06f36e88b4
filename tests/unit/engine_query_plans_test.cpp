// Fact queries must stay near-linear in the run's size: a join whose inner loop rescans a table
// (or searches it only by run and kind) costs minutes on a 100 MB trace. SQLite's plans here
// depend on the schema and the query, not on data (the store keeps no statistics), so checking
// the plan of every registered query on an empty store guards the real thing.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <sstream>

#include "engine/facts/registry.h"
#include "store/database.h"
#include "test_support.h"

using namespace perfsage;

namespace {

// Columns of an index constraint such as "(run_id=? AND kind=?)".
std::set<std::string> constrained_columns(const std::string& detail) {
  std::set<std::string> cols;
  auto open = detail.rfind('(');
  if (open == std::string::npos) return cols;
  std::string inside = detail.substr(open + 1);
  std::istringstream words(inside);
  std::string w;
  while (words >> w) {
    auto cut = w.find_first_of("=<>)");
    if (cut != std::string::npos && cut > 0) cols.insert(w.substr(0, cut));
  }
  return cols;
}

// Inner loops of joins that do not narrow the search by the join key, one line each.
std::vector<std::string> nested_scans(store::Database& db, const std::string& sql) {
  auto st = db.prepare("EXPLAIN QUERY PLAN " + sql);
  std::map<int64_t, int> loops_under;  // parent id -> loops seen so far
  std::vector<std::string> problems;
  while (st.step()) {
    int64_t parent = st.int64(1);
    std::string detail = st.text(3);
    bool scan = detail.rfind("SCAN ", 0) == 0 && detail.find("CONSTANT ROW") == std::string::npos;
    bool search = detail.rfind("SEARCH ", 0) == 0;
    if (!scan && !search) continue;
    if (loops_under[parent]++ == 0) continue;  // the outer loop may scan
    if (scan) {
      problems.push_back(detail);
      continue;
    }
    auto cols = constrained_columns(detail);
    for (const char* coarse : {"run_id", "kind", "rank"}) cols.erase(coarse);
    if (cols.empty()) problems.push_back(detail);
  }
  return problems;
}

}  // namespace

// Inner loops over tables that are small by construction: one row per rank, per transport or
// per core type. Everything else must be probed by its join key.
bool small_by_construction(const std::string& type, const std::string& detail) {
  static const std::multimap<std::string, std::string> allowed = {
      {"rank", "SCAN r"},                         // r: one row per rank
      {"comm", "SCAN ref"},                       // ref: four transport reference rows
      {"schedule", "iteration_ranks"},            // one row per rank
      {"block_dim", "USING INDEX op_tasks_run"},  // outer loop: two core types
  };
  auto [lo, hi] = allowed.equal_range(type);
  for (auto it = lo; it != hi; ++it)
    if (detail.find(it->second) != std::string::npos) return true;
  return false;
}

TEST_CASE("no fact query joins by rescanning a table") {
  test::TempDir dir;
  store::Database db((dir.path() / "plans.db").string());
  for (const auto& t : engine::facts::fact_types()) {
    INFO("fact type " << t.name);
    auto problems = nested_scans(db, t.query);
    std::erase_if(problems, [&](const std::string& d) { return small_by_construction(t.name, d); });
    std::string all;
    for (const auto& p : problems) all += "\n  " + p;
    INFO("inner loops without a join key:" << all);
    CHECK(problems.empty());
  }
}

TEST_CASE("the plan check catches a copy-to-API join that rescans the runtime calls") {
  test::TempDir dir;
  store::Database db((dir.path() / "plans.db").string());
  // The memcpy fact's join as it was before its CTE was materialized: for every copy, SQLite
  // walked all runtime calls of the run (index on run_id and kind only).
  auto bad = nested_scans(db, R"sql(
    WITH h AS (SELECT correlation, name FROM host_events
               WHERE run_id = ?1 AND kind IN ('runtime','driver') AND correlation IS NOT NULL)
    SELECT d.name, h.name FROM device_events d LEFT JOIN h ON h.correlation = d.correlation
    WHERE d.run_id = ?1 AND d.kind IN ('memcpy','memset'))sql");
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].find("host_events") != std::string::npos);
  // Two materialized CTEs joined: the inner one is scanned per outer row.
  // The kernel-to-op join as it was: k used twice (so materialized) joined to the op CTE.
  auto scans = nested_scans(db, R"sql(
    WITH k AS (SELECT name, dur_ns, external_id FROM device_events
               WHERE run_id = ?1 AND kind = 'kernel'),
    o AS (SELECT external_id, min(name) AS name FROM host_events
          WHERE run_id = ?1 AND kind = 'cpu_op' GROUP BY external_id),
    ko AS (SELECT k.*, o.name AS op FROM k LEFT JOIN o ON o.external_id = k.external_id)
    SELECT name, op, sum(dur_ns) / (SELECT sum(dur_ns) FROM k) FROM ko GROUP BY name, op)sql");
  REQUIRE(scans.size() == 1);
  CHECK(scans[0].rfind("SCAN o", 0) == 0);
}
