// End-to-end analysis of the real sample dumps in ../shared/samples (read in place).
#include "cli_support.h"

using namespace perfsage::test;

namespace {
std::string sample(const std::string& rel) {
  return (samples_dir() / rel).string();
}

}  // namespace

TEST_CASE("kernel_details with ArithmeticUtilization: AI CPU Cast operators are found") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto report = analyze_json({sample("ascend/mstt/kernel_details_arith_util.csv")});
  CHECK(report.run().device() == "ascend");
  CHECK(report.run().ops() == 591);
  CHECK(report.run().steps() == 1);
  // About 397 ms of summed task time, mostly HCCL.
  CHECK(report.run().device_time_us() == Approx(397000).epsilon(0.02));
  auto aicpu = findings(report, "aicpu");
  REQUIRE(!aicpu.empty());
  CHECK(any_subject(aicpu, "trans_Cast_5"));
  CHECK(any_subject(aicpu, "trans_Cast_18"));
  bool names_dtype = false;
  for (const auto* r : aicpu) {
    if (r->message().find("UINT64") != std::string::npos) names_dtype = true;
    // AI CPU time is ≈ 0.2 % of device time: a low-priority finding.
    CHECK(sev(*r) == "low");
  }
  CHECK(names_dtype);
  CHECK(findings(report, "gpu_runtime").empty());
}

TEST_CASE("kernel_details with minimal columns: types come from names") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto report = analyze_json({sample("ascend/mstt/kernel_details_minimal_names.csv")});
  CHECK(report.run().ops() == 8);
  CHECK(report.run().device_time_us() == Approx(1000.85).epsilon(0.001));
  // Wait Time up to 199 ms against 1 ms of task time: the device waits for the host.
  auto waits = findings(report, "training_iteration", "task_waits");
  REQUIRE(waits.size() == 1);
  CHECK(evidence_number(*waits[0], "task_wait_share") > 0.99);
}

TEST_CASE("AlexNet Kineto trace: synchronisation and pageable copies are found") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto report = analyze_json({sample(
      "kineto/hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz")});
  CHECK(report.run().device() == "cuda");
  CHECK(report.run().kernels() == 79);
  CHECK_THAT(report.run().chip(), Catch::Contains("A100"));
  auto gpu = findings(report, "gpu_runtime");
  REQUIRE(!gpu.empty());
  // The 21 sync calls are a negligible share of the 43.4 s run, so the sync rule stays quiet;
  // the pageable async copies and the launch delays are the runtime findings here.
  bool pageable = false;
  for (const auto* r : gpu) {
    std::string all = r->title() + " " + r->message();
    for (const auto& s : r->subjects()) all += " " + s;
    if (all.find("ageable") != std::string::npos) pageable = true;
  }
  CHECK(pageable);
  // HTA launch-delay outliers: 43 of 98 GPU activities start > 100 us after their launch call;
  // 3 launch calls take > 50 us.
  auto delay = findings(report, "gpu_runtime", "launch_delay");
  REQUIRE(delay.size() == 1);
  CHECK(evidence_number(*delay[0], "delayed") == 43);
  CHECK(evidence_number(*delay[0], "linked") == 98);
  CHECK(evidence_number(*delay[0], "slow_launches") == 3);
  CHECK(findings(report, "aicpu").empty());
}

TEST_CASE("CPU-only Kineto trace: no device, so no GPU finding") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto report =
      analyze_json({sample("kineto/hta__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")});
  CHECK(report.run().device() == "cpu");
  CHECK(report.run().kernels() == 0);
  CHECK(report.run().steps() == 1);
  CHECK(findings(report, "gpu_runtime").empty());
  for (const auto& p : report.packs()) CHECK(p.status() != "error");
}

TEST_CASE("the bundled example is analysed end to end") {
  auto report = analyze_json({(source_dir() / "examples/resnet50_rank0_ascend_pt").string()});
  CHECK(report.run().device() == "ascend");
  CHECK(report.run().steps() == 3);
  auto aicpu = findings(report, "aicpu");
  REQUIRE(!aicpu.empty());
  CHECK(any_subject(aicpu, "NonZero217"));
  for (const auto& f : report.ingest()) CHECK(f.collector() != "unrecognised");
}
