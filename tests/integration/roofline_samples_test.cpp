// roofline, gpu_kernels and activation packs and the hardware resolution on the real samples.
#include <catch2/catch.hpp>

#include "cli_support.h"
#include "store/database.h"

using namespace perfsage::test;

namespace {
std::string sample(const char* rel) {
  return (samples_dir() / rel).string();
}

// Ingests into a kept store (analyzers run) and returns one text value of a query.
std::string query_after_ingest(const TempDir& dir, const std::string& input,
                               const std::string& sql) {
  auto store = (dir.path() / "s.db").string();
  auto r = run_command("ingest", {input, "--store", store});
  INFO(r.err);
  REQUIRE(r.code == 0);
  perfsage::store::Database db(store);
  auto st = db.prepare(sql);
  REQUIRE(st.step());
  return st.is_null(0) ? "NULL" : st.text(0);
}
}  // namespace

TEST_CASE("roofline, gpu_kernels and activation pass their own tests with full coverage") {
  for (const char* pack : {"roofline", "gpu_kernels", "activation"}) {
    auto r = run_command("kb", {"test", pack});
    INFO(pack << "\n" << r.out << r.err);
    CHECK(r.code == 0);
  }
}

TEST_CASE("arith_util: FLOPs without bytes give one insufficient-data note and inferred cores") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto path = sample("ascend/mstt/kernel_details_arith_util.csv");
  auto report = analyze_json({path, "--kb", "roofline"});
  auto all = findings(report, "roofline");
  REQUIRE(all.size() == 1);
  CHECK(all[0]->rule() == "insufficient_data");
  CHECK(sev(*all[0]) == "info");
  CHECK_THAT(all[0]->message(), Catch::Contains("byte counters"));
  CHECK(findings(analyze_json({path, "--kb", "activation"}), "activation").empty());

  TempDir dir;
  CHECK(query_after_ingest(dir, path,
                           "SELECT match || ' ' || CAST(cube_cores AS INTEGER) || ' ' || "
                           "cores_source || ' ' || candidates FROM hardware_specs") ==
        "block_dim 24 inferred Ascend910B2,Ascend910B1");
}

TEST_CASE("AlexNet on A100: hardware matched; no shapes, so one insufficient-data note") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto path = sample(
      "kineto/hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz");
  TempDir dir;
  CHECK(query_after_ingest(dir, path, "SELECT part || ' ' || match FROM hardware_specs") ==
        "A100-SXM4-40GB alias");
  perfsage::store::Database db((dir.path() / "s.db").string());
  auto st = db.prepare(
      "SELECT count(*), sum(bound = 'insufficient_data') FROM roofline_ops WHERE run_id = 1");
  REQUIRE(st.step());
  CHECK(st.int64(0) > 0);
  CHECK(st.int64(1) == st.int64(0));  // the trace has no Input Dims: nothing is guessed
  auto report = analyze_json({path, "--kb", "roofline"});
  auto all = findings(report, "roofline");
  REQUIRE(all.size() == 1);
  CHECK(all[0]->rule() == "insufficient_data");
  CHECK_THAT(all[0]->message(), Catch::Contains("record_shapes"));
  CHECK(findings(analyze_json({path, "--kb", "activation"}), "activation").empty());
}

TEST_CASE("CPU-only trace: no GPU, roofline or activation finding") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto path = sample("kineto/hta__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
  for (const char* pack : {"gpu_kernels", "roofline", "activation"}) {
    auto r = run_command("analyze", {path, "--kb", pack, "--format", "json"});
    INFO(pack << " " << r.err);
    // Packs that do not apply to a CPU run are skipped; either way nothing may fire.
    if (r.code == 0) CHECK(findings(parse_report(r.out), pack).empty());
  }
}
