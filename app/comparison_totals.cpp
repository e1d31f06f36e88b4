#include "app/comparison_totals.h"

#include <sstream>

namespace perfsage::app {
namespace {

NameTotals read_totals(store::Database& db, const char* sql, int64_t run) {
  auto st = db.prepare(sql);
  st.bind(1, run);
  NameTotals out;
  while (st.step()) out[st.text(0)] = {st.int64(1), st.real(2), 0};
  return out;
}

// Copies and sets per copy kind (copy_groups holds one row per activity name, copy kind and
// issuing call).
NameTotals copy_totals(store::Database& db, int64_t run) {
  auto st = db.prepare(
      "SELECT kind, name, coalesce(memcpy_kind, ''), count, dur_ns, coalesce(bytes, 0) "
      "FROM copy_groups WHERE run_id = ?1");
  st.bind(1, run);
  NameTotals out;
  while (st.step()) {
    auto& t = out[copy_kind(st.text(0), st.text(1), st.text(2))];
    t.count += st.int64(3);
    t.us += static_cast<double>(st.int64(4)) / 1000.0;
    t.bytes += st.int64(5);
  }
  return out;
}

}  // namespace

std::string copy_kind(const std::string& kind, const std::string& name,
                      const std::string& memcpy_kind) {
  if (kind == "memset") return "memset";
  std::istringstream words(memcpy_kind);
  std::string word;
  if (words >> word) return word;
  // "Memcpy DtoD (Device -> Device)"
  std::istringstream name_words(name);
  std::string first;
  if (name_words >> first >> word && (first == "Memcpy" || first == "memcpy")) return word;
  return "memcpy";
}

std::map<std::string, NameTotals> compared_totals(store::Database& db, int64_t run) {
  std::map<std::string, NameTotals> out;
  auto ops = read_totals(
      db, "SELECT name, sum(count), sum(total_us) FROM op_stats WHERE run_id = ?1 GROUP BY name",
      run);
  if (!ops.empty()) {
    out["op"] = std::move(ops);
  } else {
    out["kernel"] = read_totals(
        db,
        "SELECT name, sum(kernels), sum(dur_ns) / 1000.0 FROM kernel_totals WHERE run_id = ?1 "
        "GROUP BY name",
        run);
  }
  // ProfilerStep#N is the profiler's step annotation, one name per step: not an op.
  out["cpu_op"] = read_totals(db,
                              "SELECT name, sum(count), sum(self_ns) / 1000.0 FROM host_op_self "
                              "WHERE run_id = ?1 AND name NOT LIKE 'ProfilerStep#%' GROUP BY name",
                              run);
  out["memcpy"] = copy_totals(db, run);
  out["runtime"] = read_totals(db,
                               "SELECT name, sum(calls), sum(dur_ns) / 1000.0 FROM api_totals "
                               "WHERE run_id = ?1 GROUP BY name",
                               run);
  return out;
}

}  // namespace perfsage::app
