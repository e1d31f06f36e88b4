// The same rank given 1, 2 and 64 times gives the same findings with the same gains and shares:
// every gain is per base unit (one rank's step, else the run) and per-rank findings speak for
// the worst rank on its own step, saying on how many ranks they hold.
#include <map>
#include <sstream>
#include <tuple>

#include "cli_support.h"
#include "store/file_bytes.h"

using namespace perfsage::test;
namespace fs = std::filesystem;

namespace {

struct Finding {
  std::string severity;
  double gain = 0, share = 0;
};
using Findings = std::map<std::string, Finding>;  // pack/rule/subjects -> finding

Findings findings_of(const perfsage::v1::AnalysisReport& report) {
  Findings out;
  for (const auto& r : report.recommendations()) {
    std::string key = r.pack() + "/" + r.rule();
    for (const auto& s : r.subjects()) key += "/" + s;
    INFO(key);
    CHECK(out.count(key) == 0);
    out[key] = {sev(r), r.estimated_gain_us(), r.estimated_gain_share()};
  }
  return out;
}

// `copies` rank folders holding the file: links to the sample, or, for a Kineto trace whose
// rank is written inside it, copies with the rank rewritten.
fs::path make_ranks(const TempDir& dir, const fs::path& file, int copies, bool rewrite_rank) {
  fs::path root = dir.path() / std::to_string(copies);
  std::string text;
  if (rewrite_rank) text = perfsage::store::read_file(file);
  for (int i = 0; i < copies; ++i) {
    fs::path rank_dir = root / ("rank_" + std::to_string(i));
    fs::create_directories(rank_dir);
    if (!rewrite_rank) {
      fs::create_symlink(file, rank_dir / file.filename());
      continue;
    }
    // The trace's distributedInfo says "rank": 0; each copy gets its own rank.
    std::string own = text;
    auto at = own.find("\"rank\": 0");
    REQUIRE(at != std::string::npos);
    own.replace(at, 9, "\"rank\": " + std::to_string(i));
    dir.write(fs::relative(rank_dir / "trace.json", dir.path()).string(), own);
  }
  return root;
}

// Returns the report of the 64 copies.
perfsage::v1::AnalysisReport check_same_for_1_2_64(const fs::path& sample, bool rewrite_rank) {
  TempDir dir;
  Findings one;
  perfsage::v1::AnalysisReport report;
  for (int copies : {1, 2, 64}) {
    INFO(sample.filename().string() << " x " << copies);
    auto root = make_ranks(dir, sample, copies, rewrite_rank);
    report = analyze_json({root.string()});
    CHECK(report.run().ranks() == copies);
    Findings got = findings_of(report);
    if (copies == 1) {
      one = got;
      CHECK_FALSE(one.empty());
      continue;
    }
    CHECK(got.size() == one.size());
    for (const auto& [key, f] : one) {
      INFO(key);
      auto it = got.find(key);
      REQUIRE(it != got.end());
      CHECK(it->second.severity == f.severity);
      CHECK(it->second.gain == Approx(f.gain).epsilon(1e-6));
      CHECK(it->second.share == Approx(f.share).epsilon(1e-6));
    }
  }
  return report;
}

double evidence(const perfsage::v1::Finding& r, const std::string& key) {
  return evidence_number(r, key);
}

// A made-up Ascend PyTorch timeline (trace_view.json as torch_npu writes it, no sample needed):
// three 10 ms ProfilerSteps, each with 30 aclopCompileAndExecute calls of 200 us holding an
// AscendCL@opCompile of 15 us (450 us per step: 4.5 %), and 5 stream syncs of 100 us (5 %).
std::string made_up_timeline() {
  std::ostringstream o;
  o << R"([{"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "Python"}},
{"ph": "M", "name": "process_labels", "pid": 100, "tid": 0, "args": {"labels": "CPU"}},
{"ph": "M", "name": "process_name", "pid": 200, "tid": 0, "args": {"name": "CANN"}},
{"ph": "M", "name": "process_labels", "pid": 200, "tid": 0, "args": {"labels": "CPU"}})";
  auto api = [&](const char* id, int64_t ts, int dur) {
    o << ",\n{\"ph\": \"X\", \"name\": \"AscendCL@" << id
      << "\", \"pid\": 200, \"tid\": 101, \"ts\": \"" << ts << ".000\", \"dur\": " << dur
      << ", \"args\": {\"level\": \"acl\", \"id\": \"" << id << "\"}}";
  };
  for (int step = 0; step < 3; ++step) {
    int64_t start = 1704161511420000 + step * 10000, t = start + 100;
    o << ",\n{\"ph\": \"X\", \"name\": \"ProfilerStep#" << step + 1
      << "\", \"pid\": 100, \"tid\": 100, \"ts\": \"" << start
      << ".000\", \"dur\": 10000.0, \"cat\": \"cpu_op\", \"args\": {}}";
    for (int k = 0; k < 30; ++k, t += 250) {
      api("aclopCompileAndExecute", t, 200);
      api("opCompile", t + 5, 15);
    }
    for (int k = 0; k < 5; ++k, t += 150) api("aclrtSynchronizeStream", t, 100);
  }
  o << "\n]\n";
  return o.str();
}

}  // namespace

TEST_CASE("a made-up Ascend timeline given 1, 2 and 64 times: same findings, gains and shares") {
  TempDir dir;
  auto file = dir.write("trace_view.json", made_up_timeline());
  auto report = check_same_for_1_2_64(file, false);
  // Each of the 64 ranks compiles 450 us of its own 10 ms step: 4.5 %, said for 64 of 64 ranks
  // (dividing by the step summed over ranks would give 0.07 %).
  auto compile = findings(report, "ascend_schedule", "online_compile");
  REQUIRE(compile.size() == 1);
  CHECK(evidence(*compile[0], "op_compile_share") == Approx(0.045));
  CHECK(evidence(*compile[0], "op_compile_share_median") == Approx(0.045));
  CHECK(evidence(*compile[0], "ranks_affected") == 64);
  CHECK(compile[0]->estimated_gain_us() == Approx(450));
  CHECK(compile[0]->estimated_gain_share() == Approx(0.045));
  CHECK(sev(*compile[0]) == "medium");
  CHECK_THAT(compile[0]->message(), Catch::Contains("the worst of 64 of 64 ranks"));
  CHECK_THAT(compile[0]->message(), Catch::Contains("90 opCompile calls in 3 steps"));
  auto sync = findings(report, "ascend_schedule", "stream_sync");
  REQUIRE(sync.size() == 1);
  CHECK(evidence(*sync[0], "sync_share") == Approx(0.05));
  CHECK(sync[0]->estimated_gain_us() == Approx(250));
  // No opCompile-less calls finding beside the measured one, no launch blocking (no launches).
  CHECK(findings(report, "ascend_schedule", "online_compile_calls").empty());
  CHECK(findings(report, "ascend_schedule", "launch_blocking").empty());
}

TEST_CASE("an Ascend timeline given 1, 2 and 64 times: same findings, gains and shares") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto report = check_same_for_1_2_64(samples_dir() / "ascend/mstt/trace_view.json", false);
  // A per-rank finding speaks for the worst rank and says on how many ranks it holds.
  auto compile = findings(report, "ascend_schedule", "online_compile");
  REQUIRE(compile.size() == 1);
  CHECK(evidence(*compile[0], "ranks") == 64);
  CHECK(evidence(*compile[0], "ranks_affected") == 64);
  CHECK(evidence(*compile[0], "op_compile_share_median") == Approx(0.0111).epsilon(0.02));
  CHECK_THAT(compile[0]->message(), Catch::Contains("of 64 ranks"));
}

TEST_CASE("an Ascend op table given 1, 2 and 64 times: same findings, gains and shares") {
  PERFSAGE_REQUIRE_SAMPLES();
  check_same_for_1_2_64(samples_dir() / "ascend/mstt/kernel_details_arith_util.csv", false);
}

TEST_CASE("a Kineto GPU trace as 1, 2 and 64 ranks: same findings, gains and shares") {
  PERFSAGE_REQUIRE_SAMPLES();
  check_same_for_1_2_64(
      samples_dir() /
          "kineto/hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
      true);
}
