// Iteration analyzers and their fact types over synthetic runs written into an in-memory store.
#include "analyzers/iteration/iteration.h"

#include <map>

#include "analyzer_resources.h"
#include "engine/facts/registry.h"
#include "kb_support.h"
#include "store/database.h"
#include "store/run_writer.h"
#include "store/schema.h"
#include "test_support.h"

using namespace perfsage;
namespace it = perfsage::analyzers::iteration;
namespace facts = perfsage::engine::facts;

namespace {

store::Step cluster_row(int64_t rank, double comp, double exposed, double free) {
  store::Step s;
  s.rank = rank;
  s.source = "cluster_step_trace_time";
  s.computing_us = comp;
  s.comm_not_overlapped_us = exposed;
  s.free_us = free;
  return s;
}

store::HostEvent api(const std::string& name, int64_t start_us, int64_t dur_us, int64_t rank = 0) {
  store::HostEvent e;
  e.rank = rank;
  e.kind = "api";
  e.name = name;
  e.start_ns = start_us * 1000;
  e.dur_ns = dur_us * 1000;
  return e;
}

store::DeviceEvent kernel(int64_t start_us, int64_t dur_us) {
  store::DeviceEvent e;
  e.kind = "kernel";
  e.name = "k";
  e.device = 0;
  e.start_ns = start_us * 1000;
  e.dur_ns = dur_us * 1000;
  return e;
}

// Facts of one type for the run, as slot name → number (symbols/strings as text in `text`).
struct Fact {
  std::map<std::string, double> num;
  std::map<std::string, std::string> text;
};
std::vector<Fact> facts_of(store::Database& db, int64_t run, const std::string& type) {
  const auto* t = perfsage::test::catalog()->find(type);
  REQUIRE(t != nullptr);
  std::vector<Fact> out;
  for (const auto& f : facts::query_facts(db, run, *t)) {
    Fact x;
    for (const auto& [name, v] : f) {
      if (v.is_number())
        x.num[name] = v.number();
      else
        x.text[name] = v.text;
    }
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace

TEST_CASE("merge_intervals joins overlapping and touching intervals and drops empty ones") {
  auto m = it::merge_intervals({{10, 20}, {0, 5}, {15, 30}, {30, 31}, {40, 40}, {50, 60}});
  REQUIRE(m.size() == 3);
  CHECK(m[0].start == 0);
  CHECK(m[0].end == 5);
  CHECK(m[1].start == 10);
  CHECK(m[1].end == 31);
  CHECK(m[2].start == 50);
  CHECK(it::merge_intervals({}).empty());
}

TEST_CASE("slow-rank facts follow msprof-analyze's method and leave stage rows out") {
  test::AnalysisStore db;
  store::migrate(db);
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    w.add(cluster_row(0, 100, 50, 850));
    w.add(cluster_row(1, 101, 10, 900));
    w.add(cluster_row(2, 99, 300, 600));
    w.commit();
  }
  it::analyze_iteration(db, run);
  auto ranks = facts_of(db, run, "rank");
  REQUIRE(ranks.size() == 3);
  double mean_total = (1000.0 + 1011.0 + 999.0) / 3.0;
  for (const auto& r : ranks) {
    CHECK(r.num.at("ranks") == 3);
    CHECK(r.num.at("mean_total_us") == Approx(mean_total));
    CHECK(r.num.at("computing_spread_us") == Approx(2));
    CHECK(r.num.at("comm_spread_us") == Approx(290));
    CHECK(r.num.at("free_spread_us") == Approx(300));
  }
  CHECK(ranks[2].text.at("label") == "rank 2");
  CHECK(ranks[2].num.at("comm_gap_us") == Approx(290));
  CHECK(ranks[1].num.at("free_gap_us") == Approx(300));
  auto iter = facts_of(db, run, "iteration");
  REQUIRE(iter.size() == 1);
  CHECK(iter[0].text.at("source") == "cluster_step_trace_time");
  CHECK(iter[0].num.at("step_us") == Approx(mean_total));
  CHECK(iter[0].num.at("comm_exposed_share") == Approx(360.0 / 3010.0));
  // Analysing again replaces rows instead of adding them.
  it::analyze_iteration(db, run);
  CHECK(facts_of(db, run, "rank").size() == 3);
}

TEST_CASE("a single rank gives an iteration fact but no rank facts; one source per rank") {
  test::AnalysisStore db;
  store::migrate(db);
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    store::Step s;
    s.step = 1;
    s.source = "ProfilerStep";
    s.start_ns = 0;
    s.dur_ns = 14'092'000;
    s.computing_us = 1788;
    s.free_us = 9482;
    s.comm_us = 0;
    s.comm_not_overlapped_us = 0;
    s.dataloader_us = 1319;
    s.optimizer_us = 2411;
    w.add(s);
    // The same step again from another source must not be added to it.
    s.source = "step_trace_time";
    s.computing_us = 1800;
    w.add(s);
    w.commit();
  }
  it::analyze_iteration(db, run);
  CHECK(facts_of(db, run, "rank").empty());
  auto iter = facts_of(db, run, "iteration");
  REQUIRE(iter.size() == 1);
  CHECK(iter[0].text.at("source") == "step_trace_time");
  CHECK(iter[0].num.at("step_us") == Approx(14092));
  CHECK(iter[0].num.at("computing_us") == Approx(1800));
  CHECK(iter[0].num.at("free_share") == Approx(9482.0 / 14092));
  CHECK(iter[0].num.at("device_busy_share") == Approx(1800.0 / 14092));
  CHECK(iter[0].num.at("overlap_ratio") == 0);
}

TEST_CASE("a run without steps or device activity has no iteration facts") {
  test::AnalysisStore db;
  store::migrate(db);
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    store::HostEvent e;
    e.kind = "cpu_op";
    e.name = "aten::empty";
    e.dur_ns = 1000;
    w.add(e);
    w.commit();
  }
  it::analyze_iteration(db, run);
  CHECK(facts_of(db, run, "iteration").empty());
  CHECK(facts_of(db, run, "rank").empty());
  CHECK(facts_of(db, run, "device_activity").empty());
  CHECK(facts_of(db, run, "schedule").empty());
  CHECK(facts_of(db, run, "comm").empty());
}

TEST_CASE("device activity: union, gaps at the threshold, low-utilisation chunks") {
  test::AnalysisStore db;
  store::migrate(db);
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    w.add(kernel(0, 100));  // overlapping pair: busy 0..150
    w.add(kernel(50, 100));
    w.add(kernel(150 + 500'000, 50));  // gap of exactly 500 ms counts
    w.add(kernel(1'000'000, 100));     // gap just under 500 ms does not
    w.commit();
  }
  it::analyze_iteration(db, run);
  auto a = facts_of(db, run, "device_activity");
  REQUIRE(a.size() == 1);
  CHECK(a[0].num.at("activities") == 4);
  CHECK(a[0].num.at("window_us") == Approx(1'000'100));
  CHECK(a[0].num.at("busy_us") == Approx(300));
  CHECK(a[0].num.at("gaps") == 1);
  CHECK(a[0].num.at("gap_total_us") == Approx(500'000));
  CHECK(a[0].num.at("longest_gap_us") == Approx(500'000));
  CHECK(a[0].num.at("chunks") == 30);
  CHECK(a[0].num.at("low_chunks") == 30);
  CHECK(a[0].num.at("utilisation") == Approx(300.0 / 1'000'100));
}

TEST_CASE("schedule: compile-and-execute share, syncs and Node@launch co-occurrence") {
  test::AnalysisStore db;
  store::migrate(db);
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    store::Step s;
    s.source = "ProfilerStep";
    s.start_ns = 0;
    s.dur_ns = 10'000'000;
    s.computing_us = 1000;
    w.add(s);
    w.add(api("AscendCL@aclopCompileAndExecute", 0, 3000));
    w.add(api("AscendCL@opCompile", 10, 100));
    w.add(api("Node@launch", 4000, 5));
    w.add(api("AscendCL@aclrtSynchronizeStream", 4010, 200));
    w.add(api("Node@launch", 5000, 5));
    w.add(api("AscendCL@aclMallocMemInner", 5010, 7));
    w.add(api("AscendCL@aclrtSynchronizeStreamWithTimeout", 5100, 100));
    w.add(api("Node@launch", 6000, 5));
    w.commit();
  }
  it::analyze_iteration(db, run);
  auto s = facts_of(db, run, "schedule");
  REQUIRE(s.size() == 1);
  CHECK(s[0].num.at("step_us") == Approx(10000));
  CHECK(s[0].num.at("compile_execute_calls") == 1);
  CHECK(s[0].num.at("compile_share") == Approx(0.3));
  CHECK(s[0].num.at("op_compile_calls") == 1);
  CHECK(s[0].num.at("sync_calls") == 2);
  CHECK(s[0].num.at("sync_us") == Approx(300));
  CHECK(s[0].num.at("launch_calls") == 3);
  // Both syncs directly follow a launch (the malloc in between is not a sync or launch).
  CHECK(s[0].num.at("co_occurrence") == Approx(2.0 / 3.0));
  CHECK(s[0].num.at("memory_calls") == 1);
}

TEST_CASE("comm facts: bandwidth against the transport reference, small packets, rank spread") {
  test::AnalysisStore db;
  store::migrate(db);
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    auto link = [&](int64_t rank, const char* tr, double mib, double ms) {
      store::CommOp c;
      c.rank = rank;
      c.name = "hcom_allReduce_";
      c.type = "collective";
      c.transport = tr;
      c.bytes = mib * 1048576.0;
      c.transit_us = ms * 1000.0;
      w.add(c);
    };
    store::CommOp base;  // the op's time row (no transport) is not a link
    base.name = "hcom_allReduce_";
    base.dur_ns = 5'000'000;
    w.add(base);
    link(0, "RDMA", 100, 10);  // ~10.5 GB/s
    link(1, "RDMA", 100, 20);  // ~5.2 GB/s
    link(1, "RDMA", 0.5, 1);   // small (< 1 MiB)
    link(0, "SIO", 1, 1);      // no reference: not judged
    w.commit();
  }
  it::analyze_iteration(db, run);
  auto c = facts_of(db, run, "comm");
  REQUIRE(c.size() == 2);
  const auto& rdma = c[0].text.at("transport") == "RDMA" ? c[0] : c[1];
  const auto& sio = c[0].text.at("transport") == "RDMA" ? c[1] : c[0];
  CHECK(rdma.num.at("ops") == 3);
  CHECK(rdma.num.at("ranks") == 2);
  CHECK(rdma.num.at("ref_bandwidth_gbps") == Approx(12.5));
  double gbps = 200.5 * 1048576.0 / 31000.0 / 1000.0;
  CHECK(rdma.num.at("bandwidth_gbps") == Approx(gbps));
  CHECK(rdma.num.at("bandwidth_ratio") == Approx(gbps / 12.5));
  CHECK(rdma.num.at("small_ops") == 1);
  CHECK(rdma.num.at("min_rank") == 1);
  CHECK(rdma.num.at("max_rank") == 0);
  CHECK(rdma.num.at("rank_spread") > 0.5);
  CHECK(sio.num.at("ref_bandwidth_gbps") == 0);
  CHECK(sio.num.at("small_threshold_bytes") == 0);
}

TEST_CASE("host_op facts aggregate annotations and GC events by name") {
  test::AnalysisStore db;
  store::migrate(db);
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    store::HostEvent e;
    e.kind = "user_annotation";
    e.name = "Optimizer.step#Adam.step";
    e.dur_ns = 2'000'000;
    w.add(e);
    e.start_ns = 3'000'000;
    w.add(e);
    e.kind = "gc";
    e.name = "GC";
    e.dur_ns = 1'500'000;
    w.add(e);
    e.kind = "api";  // runtime calls belong to the api fact, not host_op
    e.name = "AscendCL@aclrtSynchronizeStream";
    w.add(e);
    w.commit();
  }
  test::analyze(db, run);  // the fact reads cpu_self_time's host_op_totals
  auto h = facts_of(db, run, "host_op");
  REQUIRE(h.size() == 2);
  CHECK(h[0].text.at("name") == "Optimizer.step#Adam.step");
  CHECK(h[0].num.at("count") == 2);
  CHECK(h[0].num.at("total_us") == Approx(4000));
  CHECK(h[1].text.at("kind") == "gc");
  CHECK(h[1].num.at("max_us") == Approx(1500));
}
