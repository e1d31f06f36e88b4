// Query-plan check shared by the plan tests: inner loops of joins that neither use the join key
// nor scan a table that is small by construction are quadratic on big runs.
#pragma once

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "store/database.h"

namespace perfsage::test {

// Columns of an index constraint such as "(run_id=? AND kind=?)".
inline std::set<std::string> constrained_columns(const std::string& detail) {
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
inline std::vector<std::string> nested_scans(store::Database& db, const std::string& sql) {
  auto st = db.prepare("EXPLAIN QUERY PLAN " + sql);
  std::map<int64_t, int> loops_under;  // parent id -> loops seen so far
  std::vector<std::string> problems;
  while (st.step()) {
    int64_t parent = st.int64(1);
    std::string detail = st.text(3);
    // A virtual table's plan line is always "SCAN"; its constraints, like an index's, follow
    // in parentheses (store/event_table.cpp).
    bool virtual_table = detail.find(" VIRTUAL TABLE INDEX ") != std::string::npos;
    bool scan = detail.rfind("SCAN ", 0) == 0 && !virtual_table &&
                detail.find("CONSTANT ROW") == std::string::npos;
    bool search = detail.rfind("SEARCH ", 0) == 0 || virtual_table;
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

// Inner loops over tables that are small by construction, as (text of the statement, text of
// the plan line): per rank, per core type, per transport.
inline bool small_by_construction(const std::string& sql, const std::string& detail) {
  static const std::pair<const char*, const char*> allowed[] = {
      {"", "iteration_ranks"},             // one row per rank
      {"", "SCAN ref"},                    // four transport reference rows
      {"FROM iteration_ranks", "SCAN r"},  // the rank fact: one row per rank
      {"", "SEARCH dev USING AUTOMATIC COVERING INDEX (rank=?)"},  // per-rank totals
      {"ranks AS (SELECT rank FROM ops", "SCAN ops"},              // per-rank totals
      {"AI_VECTOR_CORE", "SCAN c"},  // block_dim: the two core types, once per task
      {"", "SEARCH rs USING AUTOMATIC COVERING INDEX (rank=?)"},  // steps per rank
      {"json_each(l.packets)", "SCAN j VIRTUAL TABLE"},           // one row's own packets
      {"FROM c CROSS JOIN rs", "SCAN rs"},  // host_comm: the ProfilerStep steps, a few per rank
      // Stub steps: each rank's median step, one row per rank.
      {"stepmed AS MATERIALIZED", "SEARCH m USING AUTOMATIC COVERING INDEX (rank=?)"},
      {"stepmed AS MATERIALIZED", "LEFT-JOIN"},
      {"json_each('[\"' || replace(g.nodes", "SCAN j VIRTUAL TABLE"},  // one clean-up's nodes
  };
  for (const auto& [in_sql, in_plan] : allowed)
    if (sql.find(in_sql) != std::string::npos && detail.find(in_plan) != std::string::npos)
      return true;
  return false;
}

// The joins of `sql` that rescan a table and are not known to be small.
inline std::vector<std::string> rescanning_joins(store::Database& db, const std::string& sql) {
  auto problems = nested_scans(db, sql);
  std::erase_if(problems, [&](const std::string& d) { return small_by_construction(sql, d); });
  return problems;
}

}  // namespace perfsage::test
