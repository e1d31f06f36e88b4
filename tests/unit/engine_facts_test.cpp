// Fact registry: declarations, deftemplates, docs and the queries over a populated store.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "analyzer_resources.h"
#include "analyzers/core/analyzer.h"
#include "engine/clips/environment.h"
#include "engine/facts/registry.h"
#include "kb_support.h"
#include "store/database.h"
#include "store/derived_tables.h"
#include "store/run_writer.h"
#include "test_support.h"

using namespace perfsage;
using engine::facts::SlotValues;

namespace {

const engine::clips::Value& slot(const SlotValues& f, const std::string& name) {
  for (const auto& [k, v] : f)
    if (k == name) return v;
  FAIL("no slot " << name);
  static engine::clips::Value none;
  return none;
}

std::vector<SlotValues> facts_of(store::Database& db, int64_t run, const char* type) {
  return engine::facts::query_facts(db, run, test::fact_type(type));
}

store::DeviceEvent dev(const char* kind, const char* name, int64_t start_us, int64_t dur_ns) {
  store::DeviceEvent e;
  e.kind = kind;
  e.name = name;
  e.start_ns = start_us * 1000;
  e.dur_ns = dur_ns;
  return e;
}

store::HostEvent host(const char* kind, const char* name, int64_t start_us, int64_t dur_ns,
                      std::optional<int64_t> corr = {}) {
  store::HostEvent e;
  e.kind = kind;
  e.name = name;
  e.start_ns = start_us * 1000;
  e.dur_ns = dur_ns;
  e.correlation = corr;
  return e;
}

}  // namespace

TEST_CASE("every fact type compiles to a deftemplate CLIPS accepts and is documented") {
  engine::clips::Environment env;
  std::string md = engine::facts::facts_markdown(*test::catalog());
  for (const char* name : {"run", "op", "op_type", "kernel", "api", "memcpy", "step", "launch"}) {
    INFO(name);
    const auto* t = test::catalog()->find(name);
    REQUIRE(t);
    CHECK(env.load(engine::facts::deftemplate(*t)).empty());
    CHECK(md.find(std::string("## `") + name + "`") != std::string::npos);
    for (const auto& s : t->slots) CHECK(md.find("| `" + s.name + "` |") != std::string::npos);
  }
  CHECK_FALSE(test::catalog()->find("nope"));
}

TEST_CASE("op and op_type facts read what the op_stats analyzer derived from the tasks") {
  test::AnalysisStore db;
  store::RunWriter w(db, {"job", {"/x"}, "fp", "2026-01-01T00:00:00Z"});
  for (int i = 0; i < 5; ++i) {
    store::OpTask t;
    t.name = "trans_Cast_5";
    t.type = "Cast";
    t.core_type = "AI_CPU";
    t.start_ns = 1000000 + i * 500000;
    t.dur_ns = 100000 + i * 10000;
    t.output_dtypes = "UINT64";
    w.add(t);
  }
  w.commit();
  int64_t run = w.run_id();
  CHECK(facts_of(db, run, "op").empty());  // nothing derived before the analyzers ran
  test::analyze(db, run);
  auto ops = facts_of(db, run, "op");
  REQUIRE(ops.size() == 1);
  CHECK(slot(ops[0], "name").text == "trans_Cast_5");
  CHECK(slot(ops[0], "core_type").type == engine::clips::ValueType::Symbol);
  CHECK(slot(ops[0], "core_type").text == "AI_CPU");
  CHECK(slot(ops[0], "count").integer == 5);
  CHECK(slot(ops[0], "max_us").real == Approx(140));
  CHECK(slot(ops[0], "avg_us").real == Approx(120));
  CHECK(slot(ops[0], "share").real == Approx(1.0));
  CHECK(slot(ops[0], "output_dtypes").text == "UINT64");
  CHECK(slot(ops[0], "block_dim").integer == 0);  // NULL -> default

  auto types = facts_of(db, run, "op_type");
  REQUIRE(types.size() == 1);
  CHECK(slot(types[0], "count").integer == 5);
  CHECK(slot(types[0], "total_us").real == Approx(600));
  CHECK(slot(types[0], "share").real == Approx(1.0));

  auto runs = facts_of(db, run, "run");
  REQUIRE(runs.size() == 1);
  CHECK(slot(runs[0], "device").text == "ascend");
  CHECK(slot(runs[0], "has_device").text == "yes");
  CHECK(slot(runs[0], "device_time_us").real == Approx(600));
  CHECK(slot(runs[0], "wall_us").real == Approx(2000 + 140));
}

TEST_CASE("the block_dim fact counts tasks whose block dim is not a multiple of the cores") {
  test::AnalysisStore db;
  store::RunWriter w(db, {"job", {"/x"}, "fp", "2026-01-01T00:00:00Z"});
  const int dims[] = {24, 48, 20, 40, 7};
  for (int i = 0; i < 200; ++i) {
    store::OpTask t;
    static const char* const kNames[] = {"Op0", "Op1", "Op2", "Op3", "Op4",
                                         "Op5", "Op6", "Op7", "Op8"};
    t.name = kNames[i % 9];
    t.type = "MatMul";
    t.core_type = i % 2 ? "AI_CORE" : "AI_VECTOR_CORE";
    t.dur_ns = 1000 + i;
    t.block_dim = dims[i % 5];
    w.add(t);
  }
  w.commit();
  int64_t run = w.run_id();
  test::analyze(db, run);
  auto facts = facts_of(db, run, "block_dim");
  REQUIRE(facts.size() == 2);
  // No core count recorded: the widest block dim (48) is taken as the AI core count, twice that
  // for vector cores. Each dim has 20 of a core type's 100 tasks; 24, 20, 40 and 7 leave cores
  // idle on AI cores, every dim on the 96 vector cores.
  const auto& cube = slot(facts[0], "core_type").text == "AI_CORE" ? facts[0] : facts[1];
  const auto& vec = &cube == &facts[0] ? facts[1] : facts[0];
  CHECK(slot(cube, "cores").integer == 48);
  CHECK(slot(cube, "cores_source").text == "inferred");
  CHECK(slot(cube, "tasks").integer == 100);
  CHECK(slot(cube, "misaligned_tasks").integer == 80);
  CHECK(slot(vec, "cores").integer == 96);
  CHECK(slot(vec, "misaligned_tasks").integer == 100);
}

TEST_CASE("the api fact sums the calls per name") {
  test::AnalysisStore db;
  store::RunWriter w(db, {"job", {"/x"}, "fp", "2026-01-01T00:00:00Z"});
  static const char* const kNames[] = {"cudaLaunchKernel", "cudaStreamSynchronize",
                                       "cudaMemcpyAsync"};
  for (int i = 0; i < 50; ++i)
    w.add(host(i % 3 == 2 ? "driver" : "runtime", kNames[i % 3], i, 1000 + 37 * i));
  w.commit();
  int64_t run = w.run_id();
  test::analyze(db, run);
  std::map<std::string, SlotValues> by_name;
  for (auto& a : facts_of(db, run, "api")) by_name[slot(a, "name").text] = a;
  REQUIRE(by_name.size() == 3);
  // cudaLaunchKernel: i = 0, 3, ..., 48, each 1000 + 37 i ns: 17 000 + 37 * 3 * 136 = 32 096 ns.
  CHECK(slot(by_name["cudaLaunchKernel"], "count").integer == 17);
  CHECK(slot(by_name["cudaLaunchKernel"], "total_us").real == Approx(32.096));
  CHECK(slot(by_name["cudaLaunchKernel"], "max_us").real == Approx(2.776));
  CHECK(slot(by_name["cudaMemcpyAsync"], "count").integer == 16);  // driver calls count too
  CHECK(slot(by_name["cudaStreamSynchronize"], "category").text == "sync");
}

TEST_CASE("GPU facts: kernels, API categories, copies with direction and issuing API, launch") {
  test::AnalysisStore db;
  store::RunWriter w(db, {"job", {"/x"}, "fp", "2026-01-01T00:00:00Z"});
  for (int i = 0; i < 8; ++i) w.add(dev("kernel", "tiny_kernel", 100 + i * 10, 4000));
  w.add(dev("kernel", "gemm", 300, 50000));
  w.add(dev("kernel", "gemm", 400, 70000));
  auto copy = dev("memcpy", "Memcpy HtoD (Pageable -> Device)", 500, 20000);
  copy.correlation = 7;
  copy.bytes = 4096;
  w.add(copy);
  w.add(dev("memset", "Memset (Device)", 600, 1000));
  w.add(host("runtime", "cudaMemcpyAsync", 490, 30000, 7));
  w.add(host("runtime", "cudaStreamSynchronize", 700, 100000));
  w.add(host("runtime", "cudaStreamSynchronize", 900, 50000));
  w.add(host("runtime", "cudaLaunchKernel", 95, 5000));
  w.add(host("runtime", "cudaStreamWaitEvent", 950, 2000));
  w.add(host("cpu_op", "aten::mm", 0, 1000000));
  store::Step s;
  s.step = 1;
  s.start_ns = 0;
  s.dur_ns = 1000000;
  w.add(s);
  w.commit();
  int64_t run = w.run_id();
  test::analyze(db, run, {"pytorch", "cuda", ""});

  auto kernels = facts_of(db, run, "kernel");
  REQUIRE(kernels.size() == 2);
  CHECK(slot(kernels[0], "name").text == "gemm");  // longest total first
  CHECK(slot(kernels[0], "count").integer == 2);
  CHECK(slot(kernels[1], "tiny").integer == 8);
  CHECK(slot(kernels[0], "share").real == Approx(120.0 / 152.0));

  auto apis = facts_of(db, run, "api");
  std::map<std::string, SlotValues> by_name;
  for (auto& a : apis) by_name[slot(a, "name").text] = a;
  REQUIRE(by_name.size() == 4);  // cpu_op is not an API call
  CHECK(slot(by_name["cudaStreamSynchronize"], "category").text == "sync");
  CHECK(slot(by_name["cudaStreamSynchronize"], "count").integer == 2);
  CHECK(slot(by_name["cudaStreamSynchronize"], "share").real == Approx(0.15));  // of the 1 ms step
  CHECK(slot(by_name["cudaMemcpyAsync"], "category").text == "memcpy");
  CHECK(slot(by_name["cudaLaunchKernel"], "category").text == "launch");
  // A stream wait orders GPU streams; the host is not blocked, so it is not a sync.
  CHECK(slot(by_name["cudaStreamWaitEvent"], "category").text == "wait");

  auto copies = facts_of(db, run, "memcpy");
  REQUIRE(copies.size() == 2);
  const auto& htod = slot(copies[0], "direction").text == "HtoD" ? copies[0] : copies[1];
  CHECK(slot(htod, "pageable").text == "yes");
  CHECK(slot(htod, "api").text == "cudaMemcpyAsync");
  CHECK(slot(htod, "async").text == "yes");
  CHECK(slot(htod, "bytes").integer == 4096);
  const auto& set = &htod == &copies[0] ? copies[1] : copies[0];
  CHECK(slot(set, "direction").text == "memset");
  CHECK(slot(set, "async").text == "unknown");

  auto launch = facts_of(db, run, "launch");
  REQUIRE(launch.size() == 1);
  CHECK(slot(launch[0], "kernels").integer == 10);
  CHECK(slot(launch[0], "tiny_kernels").integer == 8);
  CHECK(slot(launch[0], "tiny_share").real == Approx(0.8));
  CHECK(slot(launch[0], "median_kernel_us").real == Approx(4.0));
  CHECK(slot(launch[0], "gpu_busy_us").real == Approx(32 + 120 + 20 + 1));

  auto runs = facts_of(db, run, "run");
  CHECK(slot(runs[0], "device").text == "cuda");
  CHECK(slot(runs[0], "steps").integer == 1);
  CHECK(slot(runs[0], "ref_time_us").real == Approx(1000));
}

TEST_CASE("a CPU-only run: has_device no, no launch fact, no division by zero") {
  test::AnalysisStore db;
  store::RunWriter w(db, {"job", {"/x"}, "fp", "2026-01-01T00:00:00Z"});
  w.add(host("user_annotation", "gloo:all_reduce", 0, 300000000));
  w.add(host("cpu_op", "aten::empty", 10, 1000));
  w.commit();
  test::analyze(db, w.run_id());  // rank_totals: the wall span
  db.prepare("UPDATE runs SET device = 'cpu' WHERE id = ?1").bind(1, w.run_id()).run();
  auto runs = facts_of(db, w.run_id(), "run");
  REQUIRE(runs.size() == 1);
  CHECK(slot(runs[0], "device").text == "cpu");
  CHECK(slot(runs[0], "has_device").text == "no");
  CHECK(slot(runs[0], "device_time_us").real == 0.0);
  CHECK(slot(runs[0], "wall_us").real == Approx(300000));
  CHECK(facts_of(db, w.run_id(), "launch").empty());
  CHECK(facts_of(db, w.run_id(), "kernel").empty());
  CHECK(facts_of(db, w.run_id(), "api").empty());
}

TEST_CASE("coerce converts user values to slot types and refuses what does not fit") {
  using engine::facts::coerce;
  const auto* op = test::catalog()->find("op");
  CHECK(coerce(*op->slot("total_us"), engine::clips::Value::of_int(5)).type ==
        engine::clips::ValueType::Float);
  CHECK(coerce(*op->slot("core_type"), engine::clips::Value::of_string("AI_CPU")).type ==
        engine::clips::ValueType::Symbol);
  CHECK_THROWS(coerce(*op->slot("count"), engine::clips::Value::of_string("many")));
  CHECK_THROWS(coerce(*op->slot("core_type"), engine::clips::Value::of_string("AI CPU")));
}

TEST_CASE("docs/facts.md matches the registry") {
  std::ifstream in(perfsage::test::source_dir() / "docs" / "facts.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == engine::facts::facts_markdown(*test::catalog()) +
                          store::tables_markdown(analyzers::derived_tables()));
}

TEST_CASE("transdata chains of one cause are one fact, named by the costliest chain") {
  test::AnalysisStore db;
  store::RunWriter w(db, {"job", {"/x"}, "fp", "2026-01-01T00:00:00Z"});
  int64_t run = w.run_id();
  w.commit();
  auto chain = [&](const char* kind, const char* tds, const char* formats, double us) {
    db.prepare(
          "INSERT INTO transdata_chains(run_id, kind, source, graph, nodes, transdata, formats, "
          "culprit, count, total_us, share) VALUES(?1, ?2, 'sequence', '', ?3, ?3, ?4, NULL, 3, "
          "?5, ?5 / 1000.0)")
        .bind(1, run)
        .bind(2, kind)
        .bind(3, tds)
        .bind(4, formats)
        .bind(5, us)
        .run();
  };
  chain("round_trip", "TransData1;TransData2", "NC1HWC0>NCHW>NC1HWC0", 10);
  chain("round_trip", "TransData55;TransData56", "NC1HWC0>NCHW>NC1HWC0", 40);
  chain("round_trip", "TransData7;TransData8", "NCHW>NC1HWC0>NCHW", 5);
  auto facts = facts_of(db, run, "transdata_chain");
  REQUIRE(facts.size() == 2);
  CHECK(slot(facts[0], "formats").text == "NC1HWC0>NCHW>NC1HWC0");
  CHECK(slot(facts[0], "chains").integer == 2);
  CHECK(slot(facts[0], "count").integer == 6);
  CHECK(slot(facts[0], "total_us").real == Approx(50));
  CHECK(slot(facts[0], "first").text == "TransData55");
  CHECK(slot(facts[1], "chains").integer == 1);
}

TEST_CASE("the run fact counts HCCL tasks and collective kernels as communication") {
  test::AnalysisStore db;
  store::RunWriter w(db, {"job", {"/x"}, "fp", "2026-01-01T00:00:00Z"});
  auto coll = dev("kernel", "custom_allreduce_kernel", 0, 100000);
  coll.args = R"({"Collective name":"allreduce"})";
  w.add(coll);
  w.add(dev("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 200, 100000));
  w.add(dev("kernel", "ampere_sgemm_128x64_tn", 400, 300000));
  store::OpTask hccl;
  hccl.name = "hcom_allReduce__1";
  hccl.type = "hcom_allReduce_";
  hccl.core_type = "HCCL";
  hccl.dur_ns = 500000;
  w.add(hccl);
  w.commit();
  test::analyze(db, w.run_id());  // hccl_totals and gpu_comm_kernels
  auto run = facts_of(db, w.run_id(), "run");
  REQUIRE(run.size() == 1);
  CHECK(slot(run[0], "comm_device_us").real == Approx(700));
  CHECK(slot(run[0], "comm_device_share").real == Approx(0.7));
  CHECK(slot(run[0], "top_comm_op").text == "hcom_allReduce__1");
}
