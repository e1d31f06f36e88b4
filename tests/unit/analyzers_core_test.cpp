#include <tuple>
#include <unordered_set>

#include "analyzer_resources.h"
#include "analyzers/core/analyze_run.h"
#include "analyzers/core/launch_ops.h"
#include "analyzers/core/op_key_table.h"
#include "analyzers/core/op_stats.h"
#include "analyzers/core/rank_totals.h"
#include "analyzers/core/shared_passes.h"
#include "analyzers/core/stream_sort.h"
#include "store/run_writer.h"
#include "test_support.h"

using namespace perfsage;

namespace {
store::OpTask task(const std::string& name, const std::string& type, const std::string& core,
                   int64_t dur_ns, int64_t step = 1) {
  store::OpTask t;
  t.name = name;
  t.type = type;
  t.core_type = core;
  t.dur_ns = dur_ns;
  t.step = step;
  return t;
}
}  // namespace

TEST_CASE("op statistics aggregate executions per op name and per op type") {
  test::AnalysisStore db;
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    auto cast = task("trans_Cast_5", "Cast", "AI_CPU", 100'000);
    cast.output_dtypes = "UINT64";
    w.add(cast);
    cast.dur_ns = 200'000;
    w.add(cast);
    w.add(task("MatMul1", "MatMul", "AI_CORE", 700'000));
    w.add(task("trans_Cast_18", "Cast", "AI_CPU", 0));
    w.commit();
  }
  analyzers::compute_op_stats(db, run);
  auto st = db.prepare(
      "SELECT count, total_us, avg_us, max_us, min_us, share, output_dtypes FROM op_stats "
      "WHERE run_id=?1 AND name='trans_Cast_5'");
  st.bind(1, run);
  REQUIRE(st.step());
  CHECK(st.int64(0) == 2);
  CHECK(st.real(1) == Approx(300));
  CHECK(st.real(2) == Approx(150));
  CHECK(st.real(3) == Approx(200));
  CHECK(st.real(4) == Approx(100));
  CHECK(st.real(5) == Approx(0.3));
  CHECK(st.text(6) == "UINT64");
  auto ty = db.prepare(
      "SELECT count, ops, total_us, share FROM op_type_stats WHERE run_id=?1 AND type='Cast'");
  ty.bind(1, run);
  REQUIRE(ty.step());
  CHECK(ty.int64(0) == 3);
  CHECK(ty.int64(1) == 2);
  CHECK(ty.real(2) == Approx(300));
  CHECK(ty.real(3) == Approx(0.3));
  // Idempotent: running again replaces rather than duplicates.
  analyzers::compute_op_stats(db, run);
  auto n = db.prepare("SELECT count(*) FROM op_stats WHERE run_id=?1");
  n.bind(1, run);
  n.step();
  CHECK(n.int64(0) == 3);
}

TEST_CASE("the run summary counts ranks, steps and device time from any record kind") {
  test::AnalysisStore db;
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    for (int rank : {0, 1}) {
      store::Step s;
      s.rank = rank;
      s.step = 7;
      s.source = "ProfilerStep";
      s.dur_ns = rank ? 3'000'000 : 1'000'000;
      w.add(s);
      store::DeviceEvent k;
      k.rank = rank;
      k.kind = "kernel";
      k.name = "sgemm";
      k.dur_ns = 500'000;
      w.add(k);
    }
    w.commit();
  }
  auto s = analyzers::analyze_run(db, run, {"pytorch", "cuda", "A100"},
                                  {test::shipped_hardware(), test::shipped_patterns()});
  CHECK(s.ranks == 2);
  CHECK(s.steps == 1);
  CHECK(s.step_time_us == Approx(2000));
  CHECK(s.device_time_us == Approx(1000));
  CHECK(s.device == "cuda");
  auto counts = analyzers::count_run_records(db, run);
  CHECK(counts.kernels == 2);
  CHECK(counts.ops == 0);
}

TEST_CASE("a run without any device activity reports an unknown device and zero times") {
  test::AnalysisStore db;
  store::RunWriter w(db, {"j", {}, "fp", "now"});
  int64_t run = w.run_id();
  w.commit();
  auto s =
      analyzers::analyze_run(db, run, {}, {test::shipped_hardware(), test::shipped_patterns()});
  CHECK(s.device == "unknown");
  CHECK(s.device_time_us == 0);
  CHECK(s.step_time_us == 0);
}

TEST_CASE("device time counts a rank's tasks once when both op tables and a timeline exist") {
  test::AnalysisStore db;
  store::RunWriter w(db, {"j", {}, "fp", "now"});
  int64_t run = w.run_id();
  w.add(task("Conv2D1", "Conv2D", "AI_CORE", 400'000));
  store::DeviceEvent same;  // the same task seen on the Ascend Hardware timeline
  same.kind = "kernel";
  same.name = "Conv2D1";
  same.dur_ns = 400'000;
  w.add(same);
  store::DeviceEvent other_rank = same;  // a rank with only a timeline
  other_rank.rank = 1;
  w.add(other_rank);
  w.commit();
  auto s = analyzers::analyze_run(db, run, {"pytorch-npu", "ascend", ""},
                                  {test::shipped_hardware(), test::shipped_patterns()});
  CHECK(s.device_time_us == Approx(800));
}

TEST_CASE("analyze_run says how many analyzers have ended, one after another and concurrently") {
  test::TempDir dir;
  for (unsigned threads : {1u, 3u}) {
    // A store in a file: with more than one thread the analyzers run concurrently.
    test::AnalysisStore db(
        (dir.path() / (std::string("s") + std::to_string(threads) + ".db")).string());
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    int64_t run = w.run_id();
    w.add(task("Conv2D1", "Conv2D", "AI_CORE", 400'000));
    w.commit();
    std::vector<size_t> done;
    size_t total = 0;
    analyzers::analyze_run(db, run, {"pytorch-npu", "ascend", ""},
                           {test::shipped_hardware(), test::shipped_patterns()}, threads,
                           [&](size_t n, size_t of) {
                             done.push_back(n);
                             total = of;
                           });
    INFO(threads << " thread(s)");
    CHECK(total == analyzers::analyzers().size());
    REQUIRE(done.size() == total);
    for (size_t i = 0; i < done.size(); ++i) CHECK(done[i] == i + 1);
  }
}

TEST_CASE(
    "op_stats, op_block_dims and op_name_totals from the C++ grouping equal SQL's GROUP BY per "
    "rank, across blocks") {
  test::AnalysisStore db;
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    // Several blocks, names recurring in all of them, nullable counters on some tasks only.
    for (int i = 0; i < 70'000; ++i) {
      auto t = task("Op" + std::to_string(i % 37), i % 3 ? "MatMul" : "Add",
                    i % 2 ? "AI_CORE" : "AI_VECTOR_CORE", 1000 + i % 101);
      t.rank = i % 4;
      if (i % 5) t.block_dim = 8 + i % 3 * 20;
      if (i % 7 == 0) t.cube_fops = i * 0.5;
      if (i % 11 == 0) t.mac_ratio = (i % 100) / 100.0;
      t.input_shapes = "shape" + std::to_string(i);
      // OP State on some names only, in any case, empty on some tasks (no state).
      if (i % 37 < 5) t.op_state = i % 37 == 0 ? "" : i % 37 < 3 ? "Dynamic" : "static";
      if (i % 37 == 3 && i % 2) t.op_state = "DYNAMIC";
      w.add(t);
    }
    w.commit();
  }
  analyzers::compute_op_stats(db, run);
  auto rows = [&](const std::string& sql) {
    auto st = db.prepare(sql);
    st.bind(1, run);
    std::string out;
    while (st.step()) {
      for (int c = 0; c < st.column_count(); ++c) out += (st.is_null(c) ? "-" : st.text(c)) + "|";
      out += "\n";
    }
    return out;
  };
  // Each rank's groups on their own, the share of the rank's own op time.
  CHECK(rows("SELECT name, type, core_type, rank, count, total_us, min_us, max_us, block_dim, "
             "cube_fops, round(mac_ratio, 9), input_shapes, round(share, 12) FROM op_stats "
             "WHERE run_id = ?1 ORDER BY name, type, core_type, rank") ==
        rows("WITH a AS (SELECT name, type, core_type, rank, count(*) AS n, "
             "sum(dur_ns) / 1000.0 AS t, min(dur_ns) / 1000.0 AS lo, max(dur_ns) / 1000.0 AS hi, "
             "max(block_dim) AS bd, sum(cube_fops) AS cf, round(avg(mac_ratio), 9) AS mr, "
             "max(rowid) AS rid, sum(dur_ns) AS ns FROM op_tasks WHERE run_id = ?1 "
             "GROUP BY name, type, core_type, rank), "
             "r AS (SELECT rank, sum(dur_ns) AS ns FROM op_tasks WHERE run_id = ?1 GROUP BY rank) "
             "SELECT a.name, a.type, a.core_type, a.rank, a.n, a.t, a.lo, a.hi, a.bd, a.cf, a.mr, "
             "l.input_shapes, round(a.ns * 1.0 / r.ns, 12) FROM a JOIN op_tasks l ON l.rowid = "
             "a.rid JOIN r ON r.rank = a.rank ORDER BY a.name, a.type, a.core_type, a.rank"));
  CHECK(rows("SELECT rank, core_type, name, block_dim, tasks, dur_ns FROM op_block_dims "
             "WHERE run_id = ?1 ORDER BY 1, 2, 3, 4") ==
        rows("SELECT rank, core_type, name, block_dim, count(*), sum(dur_ns) FROM op_tasks "
             "WHERE run_id = ?1 AND block_dim > 0 GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"));
  CHECK(rows("SELECT rank, type, core_type, count, ops, round(total_us, 6), round(share, 12) "
             "FROM op_type_stats WHERE run_id = ?1 ORDER BY 1, 2, 3") ==
        rows("WITH r AS (SELECT rank, sum(dur_ns) AS ns FROM op_tasks WHERE run_id = ?1 "
             "GROUP BY rank) SELECT o.rank, type, core_type, count(*), count(DISTINCT name), "
             "round(sum(dur_ns) / 1000.0, 6), round(sum(dur_ns) * 1.0 / max(r.ns), 12) "
             "FROM op_tasks o JOIN r ON r.rank = o.rank WHERE run_id = ?1 "
             "GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"));
  CHECK(rows("SELECT count(*) FROM op_block_dims WHERE run_id = ?1") != "0|\n");
  // In each rank's order of first appearance (the block_dim fact reads them in row order).
  CHECK(rows("SELECT rank, core_type, name, block_dim FROM op_block_dims WHERE run_id = ?1 "
             "ORDER BY rowid") ==
        rows("SELECT rank, core_type, name, block_dim FROM op_tasks WHERE run_id = ?1 AND "
             "block_dim > 0 GROUP BY 1, 2, 3, 4 ORDER BY rank, min(rowid)"));
  // What the fusion_candidate, dynamic_shape and block_dim facts grouped the tasks for.
  CHECK(rows("SELECT rank, name, tasks, dur_ns, state_tasks, state_dur_ns, dynamic, static "
             "FROM op_name_totals WHERE run_id = ?1") ==
        rows("SELECT rank, name, count(*), sum(dur_ns), "
             "sum(op_state IS NOT NULL AND op_state != ''), "
             "sum(CASE WHEN op_state IS NOT NULL AND op_state != '' THEN dur_ns ELSE 0 END), "
             "coalesce(max(lower(op_state) = 'dynamic'), 0), "
             "coalesce(max(lower(op_state) = 'static'), 0) "
             "FROM op_tasks WHERE run_id = ?1 GROUP BY rank, name"));
  // Op1 and Op2 dynamic on every rank, Op3 on the odd ranks (odd tasks); Op3 static on the even
  // ranks, Op4 on every rank.
  CHECK(rows("SELECT sum(dynamic), sum(static) FROM op_name_totals WHERE run_id = ?1") ==
        "10|6|\n");
}

TEST_CASE("launch-op keys hash ids of any size (the Ascend sample's overflowed a signed product)") {
  // Under the asan preset (UBSan, halting on the first report) this fails if the hash
  // multiplies in signed arithmetic; trace_view.json's ids are above 2^53.
  analyzers::OpKeyHash hash;
  analyzers::OpKey big{3, INT64_MAX - 7}, small{3, 1}, negative{0, INT64_MIN};
  CHECK(hash(big) != hash(small));
  CHECK(hash(big) == hash(analyzers::OpKey{3, INT64_MAX - 7}));
  (void)hash(negative);
  std::unordered_set<analyzers::OpKey, analyzers::OpKeyHash> keys{big, small, negative};
  CHECK(keys.size() == 3);
}

TEST_CASE("the launch pass is made once for the analyzers that declared it, then let go") {
  test::TempDir dir;
  test::AnalysisStore db((dir.path() / "s.db").string());
  int64_t run;
  {
    // One op launching one kernel through its External id.
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    auto event = [](auto e, const char* kind, const char* name, int64_t dur_ns) {
      e.kind = kind;
      e.name = name;
      e.dur_ns = dur_ns;
      e.external_id = 7;
      return e;
    };
    w.add(event(store::HostEvent{}, "cpu_op", "aten::mm", 50));
    w.add(event(store::DeviceEvent{}, "kernel", "gemm", 20));
    w.commit();
  }
  analyzers::SharedPasses passes(2);
  auto first = passes.launch_pass(db, run);
  // Another connection, as a concurrent analyzer has: it gets the pass the first one made.
  auto reader = store::Database::open_reader(db.path());
  auto second = passes.launch_pass(*reader, run);
  CHECK(first == second);
  REQUIRE(first->cpu_ops.size() == 1);
  CHECK(first->cpu_ops[0].ns == 20);  // the op's time in its sequence is its kernel's
  // The last declared user took it: the holders' references are the only ones left.
  CHECK(first.use_count() == 2);
  CHECK(passes.launch_pass(db, run) != first);
  // Made ahead (as for an analyzer that then writes on the store's connection), it is the one
  // every user takes.
  analyzers::SharedPasses ahead(1);
  ahead.prepare_launch_pass(*reader, run);
  auto prepared = ahead.launch_pass(db, run);
  REQUIRE(prepared->cpu_ops.size() == 1);
  CHECK(prepared.use_count() == 1);  // the only user took it: nothing else holds it
  // Without shared passes (an analyzer run on its own) each caller makes its own.
  CHECK(analyzers::launch_pass(nullptr, db, run) != analyzers::launch_pass(nullptr, db, run));
}

TEST_CASE("run totals: ranks of every record, device time from op tables before activities") {
  test::AnalysisStore db;
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    auto on_rank = [](auto e, int64_t rank, const char* kind, int64_t dur_ns) {
      e.rank = rank;
      e.kind = kind;
      e.dur_ns = dur_ns;
      return e;
    };
    auto op = task("MatMul1", "MatMul", "AI_CORE", 100, 1);
    w.add(op);
    op.rank = 1;
    op.dur_ns = 200;
    op.step = 2;
    w.add(op);
    // Rank 1's activities are the same tasks as its op table's: counted once, from the table.
    w.add(on_rank(store::DeviceEvent{}, 1, "kernel", 50));
    w.add(on_rank(store::DeviceEvent{}, 2, "kernel", 70));
    w.add(on_rank(store::DeviceEvent{}, 2, "memcpy", 30));
    w.add(on_rank(store::DeviceEvent{}, 2, "sync", 1000));  // not device work
    w.add(on_rank(store::HostEvent{}, 3, "cpu_op", 5000));
    w.commit();
  }
  analyzers::compute_rank_totals(db, run);  // what the totals are summed from
  auto totals = analyzers::compute_run_totals(db, run, {});
  CHECK(totals.ranks == 4);
  CHECK(totals.device_time_us == Approx(0.4));
  CHECK(totals.steps == 2);  // the op tables' step ids, without a step source
}

TEST_CASE("op-key table: every key keeps its value through growth, ids of any size") {
  analyzers::OpKeyTable<int64_t> table(2);  // grows many times below
  std::vector<analyzers::OpKey> keys;
  for (int64_t i = 0; i < 5000; ++i) keys.push_back({i % 3, i * 7919 - 2500});
  keys.push_back({0, INT64_MIN});
  keys.push_back({7, INT64_MAX});
  for (size_t i = 0; i < keys.size(); ++i) table[keys[i]] = static_cast<int64_t>(i);
  CHECK(table.size() == keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const int64_t* v = table.find(keys[i]);
    REQUIRE(v != nullptr);
    CHECK(*v == static_cast<int64_t>(i));
  }
  CHECK(table.find({5, 1}) == nullptr);
  CHECK(table.contains(keys[7]));
  CHECK_FALSE(table.contains({5, 1}));
  table[keys[3]] += 100;  // an existing key: its value, not a new entry
  CHECK(*table.find(keys[3]) == 103);
  CHECK(table.size() == keys.size());
}

TEST_CASE("sort_by_stream orders as a stable sort by stream, then start") {
  struct Item {
    int64_t stream, start, row;
  };
  std::vector<Item> items;
  // Three streams interleaved, one in order, one in reverse, one with equal starts.
  for (int64_t i = 0; i < 3000; ++i) {
    const int64_t stream = (i * 7) % 3;
    const int64_t start = stream == 0 ? i : stream == 1 ? 5000 - i : i / 100;
    items.push_back({stream, start, i});
  }
  auto expected = items;
  std::stable_sort(expected.begin(), expected.end(), [](const Item& a, const Item& b) {
    return std::tie(a.stream, a.start) < std::tie(b.stream, b.start);
  });
  analyzers::sort_by_stream(
      items, [](const Item& t) { return t.stream; },
      [](const Item& a, const Item& b) { return a.start < b.start; });
  REQUIRE(items.size() == expected.size());
  for (size_t i = 0; i < items.size(); ++i) CHECK(items[i].row == expected[i].row);
  std::vector<Item> none;
  analyzers::sort_by_stream(
      none, [](const Item& t) { return t.stream; },
      [](const Item& a, const Item& b) { return a.start < b.start; });
  CHECK(none.empty());
}

TEST_CASE("the op groups and the op task pass are read once for their users") {
  test::AnalysisStore db;
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    for (int i = 0; i < 6; ++i) {
      auto t = task(i % 2 ? "MatMul1" : "Add1", i % 2 ? "MatMul" : "Add", "AI_CORE", 100 + i);
      t.start_ns = 1000 * i;
      t.block_dim = 8;
      w.add(t);
    }
    w.commit();
  }
  analyzers::SharedPasses passes(0, 2, 2);
  auto groups = passes.op_groups(db, run);
  auto reader = store::Database::open_reader(db.path());
  auto second = passes.op_groups(*reader, run);
  CHECK(second == groups);         // the second user gets the first's
  CHECK(groups.use_count() == 2);  // and the passes hold it no longer
  REQUIRE(groups->groups.size() == 2);
  CHECK(groups->groups[0].name == "MatMul1");  // longest total first
  REQUIRE(groups->block_dims.size() == 2);
  CHECK(groups->block_dims[0].name == "Add1");  // first appearance
  CHECK(groups->block_dims[0].tasks == 3);
  CHECK(groups->block_dims[1].dur_ns == 101 + 103 + 105);
  // A user that does not need the task pass after all lets the other one have the last copy.
  passes.skip_op_tasks();
  auto tasks = passes.op_tasks(db, run);
  CHECK(tasks.use_count() == 1);
  REQUIRE(tasks->tasks.size() == 6);
  CHECK(tasks->texts.text(tasks->tasks[1].name) == "MatMul1");
  CHECK(tasks->tasks[2].start == 2000);
  CHECK(tasks->tasks[0].stream == -1);  // NULL
  CHECK(tasks->tasks[0].input_shapes == analyzers::OpTaskPass::kNone);
}

TEST_CASE("launch calls nest in the innermost op of their thread, whatever order they come in") {
  using analyzers::HostSpan;
  // Rank 0 thread (1, 10): op 100 [0, 100] holds op 101 [10, 50] and op 102 [60, 90]; op 103 and
  // op 104 share the span [20, 40] inside 101 (the later written is the inner one); op 105
  // starts where call 7 starts. Thread (1, 11) has a call outside any op. Rank 1 reuses ids.
  std::vector<HostSpan> ops = {{0, 1, 10, 60, 90, 102}, {0, 1, 10, 0, 100, 100},
                               {0, 1, 10, 10, 50, 101}, {0, 1, 10, 20, 40, 103},
                               {0, 1, 10, 20, 40, 104}, {0, 1, 10, 95, 99, 105},
                               {1, 1, 10, 0, 100, 100}, {0, 1, 11, 0, 5, 106}};
  std::vector<HostSpan> calls = {
      {0, 1, 10, 95, 96, 7},  {0, 1, 10, 30, 31, 5}, {0, 1, 10, 70, 71, 6},
      {0, 1, 10, 55, 56, 8},  {0, 1, 11, 50, 51, 9}, {1, 1, 10, 5, 6, 5},
      {0, 1, 10, 10, 11, 10}, {0, 2, 10, 30, 31, 11}};  // pid 2 has no ops
  auto links = analyzers::nest_launch_calls(ops, calls);
  std::vector<std::tuple<int64_t, int64_t, int64_t>> got;
  for (const auto& l : links) got.emplace_back(l.rank, l.correlation, l.op_external_id);
  // Threads in (rank, pid, tid) order, each by start.
  CHECK(got == std::vector<std::tuple<int64_t, int64_t, int64_t>>{
                   {0, 10, 101}, {0, 5, 104}, {0, 8, 100}, {0, 6, 102}, {0, 7, 105}, {1, 5, 100}});
  // The same links whatever order the spans are given in, but for ops alike in span, where the
  // order given decides which is inner.
  std::vector<HostSpan> reversed_ops(ops.rbegin(), ops.rend()),
      reversed_calls(calls.rbegin(), calls.rend());
  auto again = analyzers::nest_launch_calls(reversed_ops, reversed_calls);
  REQUIRE(again.size() == links.size());
  CHECK(again[1].op_external_id == 103);
  for (size_t i = 0; i < links.size(); ++i)
    if (i != 1) CHECK(again[i].op_external_id == links[i].op_external_id);
}
