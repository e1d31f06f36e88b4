#include "analyzers/core/cpu_self_time.h"

#include <string>

#include "analyzer_resources.h"
#include "store/run_writer.h"
#include "test_support.h"

using namespace perfsage;

namespace {

store::HostEvent op(int64_t rank, std::optional<int64_t> tid, const std::string& name,
                    int64_t start, int64_t end) {
  store::HostEvent e;
  e.kind = "cpu_op";
  e.rank = rank;
  e.name = name;
  if (tid) {
    e.pid = 1;
    e.tid = *tid;
  }
  e.start_ns = start;
  e.dur_ns = end - start;
  return e;
}

std::string rows(store::Database& db, int64_t run, const std::string& sql) {
  auto st = db.prepare(sql);
  st.bind(1, run);
  std::string out;
  while (st.step()) {
    for (int c = 0; c < st.column_count(); ++c) out += st.text(c) + "|";
    out += "\n";
  }
  return out;
}

// host_op_self in row order.
std::string self_rows(store::Database& db, int64_t run) {
  return rows(db, run,
              "SELECT rank, name, count, total_ns, self_ns FROM host_op_self WHERE run_id = ?1 "
              "ORDER BY rowid");
}

}  // namespace

TEST_CASE("CPU self time nests ops per thread by time; identical spans nest in trace order") {
  test::AnalysisStore db;
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    // Rank 1 first, out of order: the twins have one span, the first written is the outer one.
    w.add(op(1, 1, "twinB", 5, 8));
    w.add(op(1, 1, "outer", 0, 10));
    w.add(op(1, 1, "twinA", 5, 8));
    // Rank 0, thread 1 out of order and interleaved with thread 2 and a thread without ids.
    w.add(op(0, 1, "inner", 20, 30));
    w.add(op(0, 2, "other", 15, 40));
    w.add(op(0, 1, "outer", 0, 100));
    w.add(op(0, std::nullopt, "nopid", 0, 10));
    w.add(op(0, 1, "mid", 10, 50));
    w.add(op(0, 2, "inner", 20, 30));  // inside other
    w.add(op(0, 1, "skew", 90, 110));  // overlaps outer without fitting in it: not its child
    w.add(op(0, 1, "twinA", 200, 300));
    w.add(op(0, 1, "twinB", 200, 300));
    w.commit();
  }
  CHECK(analyzers::compute_cpu_self_time(db, run) == 8);
  // Rows by rank, then name.
  CHECK(self_rows(db, run) ==
        "0|inner|2|20|20|\n"
        "0|mid|1|40|30|\n"
        "0|nopid|1|10|10|\n"
        "0|other|1|25|15|\n"
        "0|outer|1|100|60|\n"
        "0|skew|1|20|20|\n"
        "0|twinA|1|100|0|\n"
        "0|twinB|1|100|100|\n"
        "1|outer|1|10|7|\n"
        "1|twinA|1|3|3|\n"
        "1|twinB|1|3|0|\n");
  CHECK(rows(db, run,
             "SELECT rank, name, count, dur_ns, max_ns FROM host_op_totals WHERE run_id = ?1 "
             "AND kind = 'cpu_op' AND name IN ('inner', 'twinB') ORDER BY rowid") ==
        "0|inner|2|20|10|\n0|twinB|1|100|100|\n1|twinB|1|3|3|\n");
}

TEST_CASE("CPU self time across blocks: names recur in each block's dictionary") {
  test::AnalysisStore db;
  int64_t run;
  const int64_t n = 30'000;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    // Two threads taking turns: thread 0's ops in nesting order (read in place), thread 1's
    // outer ops after the ops inside them (sorted).
    for (int64_t i = 0; i < n; ++i) {
      const int64_t t = i * 100, tid = i % 2;
      auto inner = op(0, tid, "inner" + std::to_string(i % 3), t + 2, t + 5),
           outer = op(0, tid, "outer", t, t + 10 + i % 2);
      w.add(tid == 0 ? outer : inner);
      w.add(tid == 0 ? inner : outer);
    }
    w.commit();
  }
  CHECK(analyzers::compute_cpu_self_time(db, run) == 4);
  CHECK(self_rows(db, run) ==
        "0|inner0|10000|30000|30000|\n0|inner1|10000|30000|30000|\n0|inner2|10000|30000|30000|\n"
        "0|outer|30000|315000|225000|\n");
}
