// Ascend knowledge msprof-analyze's advisor has, checked end to end: cluster communication in
// its real nesting, quiet where msprof-analyze is wrong (no OP State column).
#include <sstream>

#include "cli_support.h"
#include "store/file_bytes.h"

using namespace perfsage::test;
namespace fs = std::filesystem;

namespace {
fs::path fixture(const std::string& rel) {
  return source_dir() / "tests" / "fixtures" / rel;
}
}  // namespace

TEST_CASE("cluster_communication.json: per-rank numbers, waits and small packets") {
  auto file = fixture("ascend/cluster_communication/cluster_communication.json");
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  auto report = analyze_json({file.string(), "--store", store, "--kb", "cluster"});
  // Every rank's op rows carry their numbers (4 ranks x 2 steps x 2 ops, plus 2 links each).
  auto q =
      run_command("query", {"--store", store, "--header", "0",
                            "SELECT count(*), count(wait_us), count(DISTINCT rank), "
                            "count(DISTINCT group_name) FROM comm_ops WHERE transport IS NULL"});
  REQUIRE(q.code == 0);
  CHECK(q.out == "16\t16\t4\t1\n");
  q = run_command("query",
                  {"--store", store, "--header", "0",
                   "SELECT count(*), count(packets), min(large_packet_ratio) FROM comm_ops "
                   "WHERE transport = 'RDMA'"});
  CHECK(q.out == "16\t16\t0.0\n");

  auto wait = findings(report, "cluster", "collective_wait");
  REQUIRE(wait.size() == 1);
  CHECK(evidence_number(*wait[0], "waiting_rank") == 2);
  CHECK(evidence_number(*wait[0], "last_rank") == 0);
  CHECK(evidence_number(*wait[0], "wait_ratio") == Approx(0.9999).epsilon(0.001));
  auto packets = findings(report, "cluster", "small_packets");
  REQUIRE(packets.size() == 1);
  CHECK(has_subject(*packets[0], "RDMA"));
  CHECK_THAT(packets[0]->message(), Catch::Contains("RDMA packets"));
  // HCCS moves 32 MB packets: not small.
  for (const auto* f : packets) CHECK_FALSE(has_subject(*f, "HCCS"));
}

TEST_CASE("a communication op without a single number is a skipped record, not a NULL row") {
  TempDir dir;
  auto file = dir.write("cluster_communication.json", R"J({"(0, 1)": {"step1": {
    "hcom_allReduce__1_1@9": {"0": {"Communication Time Info": {"Elapse Time(ms)": 2.0,
        "Transit Time(ms)": 1.5, "Wait Time(ms)": 0.5}},
      "1": {"Communication Time Info": {}, "Communication Bandwidth Info": {}}}}}})J");
  auto strict = run_command("analyze", {file.string(), "--format", "json"});
  CHECK(strict.code != 0);
  CHECK_THAT(strict.err, Catch::Contains("without any time or size"));
  auto store = (dir.path() / "s.db").string();
  auto lenient = run_command("analyze", {file.string(), "--lenient", "--store", store});
  REQUIRE(lenient.code == 0);
  CHECK_THAT(lenient.out, Catch::Contains("without any time or size"));
  auto q = run_command(
      "query", {"--store", store, "--header", "0", "SELECT count(*), count(dur_ns) FROM comm_ops"});
  CHECK(q.out == "1\t1\n");
}

TEST_CASE("no OP State column: no dynamic-shape verdict (msprof-analyze says all dynamic)") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto report =
      analyze_json({(samples_dir() / "ascend/mstt/kernel_details_arith_util.csv").string(), "--kb",
                    "ascend_schedule"});
  CHECK(findings(report, "ascend_schedule", "dynamic_shape_ops").empty());
  CHECK(findings(report, "ascend_schedule", "dynamic_shape_graph").empty());
}

TEST_CASE("OP State decides dynamic shapes; without the column nothing is said") {
  // The daemon's made-up op table (no OP State column, like the arith_util sample), then the
  // same table with the column: every op dynamic, or one of them static.
  std::string table = perfsage::store::read_file(
      fixture("daemon/ascend_run/ASCEND_PROFILER_OUTPUT/kernel_details.csv"));
  auto with_state = [&](const char* first_state) {
    std::istringstream in(table);
    std::string line, out;
    for (int n = 0; std::getline(in, line); ++n) {
      if (line.empty()) continue;
      out += line + (n == 0 ? ",OP State" : n == 1 ? std::string(",") + first_state : ",dynamic");
      out += "\n";
    }
    return out;
  };
  auto run = [&](const std::string& text) {
    TempDir dir;
    auto file = dir.write("kernel_details.csv", text);
    return analyze_json({file.string(), "--kb", "ascend_schedule"});
  };
  auto none = run(table);
  CHECK(findings(none, "ascend_schedule", "dynamic_shape_ops").empty());
  CHECK(findings(none, "ascend_schedule", "dynamic_shape_graph").empty());
  auto all = run(with_state("dynamic"));
  auto dyn = findings(all, "ascend_schedule", "dynamic_shape_ops");
  REQUIRE(dyn.size() == 1);
  CHECK(evidence_number(*dyn[0], "ops") == evidence_number(*dyn[0], "dynamic_ops"));
  CHECK(sev(*dyn[0]) == "medium");
  auto mixed = run(with_state("static"));
  CHECK(findings(mixed, "ascend_schedule", "dynamic_shape_ops").empty());
}
