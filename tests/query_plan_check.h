// Query-plan check shared by the plan tests: inner loops of joins that neither use the join key
// nor scan a table that is small by construction are quadratic on big runs.
#pragma once

#include <map>
#include <set>
#include <sstream>
#include <string>
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


}  // namespace perfsage::test
