// GPU advice on real traces (../shared/samples/kineto, HTA's public test data) edited the way
// real runs differ, each edit checked against the unedited trace: the V100 DDP trace's
// all-reduce kernels renamed to SendRecv, the A100 AlexNet trace relabelled as an MI250 GCD, and
// the end-of-profiling cudaDeviceSynchronize of the V100 trace, which lies after its last step.
#include <regex>

#include "cli_support.h"
#include "store/file_bytes.h"

using namespace perfsage::test;
namespace fs = std::filesystem;

namespace {

fs::path sample(const char* name) {
  return samples_dir() / "kineto" / name;
}

const char* kDdpV100 = "hta__df_index_resolver_df_index_resolver.json.gz";
const char* kAlexNetA100 =
    "hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  size_t n = 0;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
    ++n;
  }
  REQUIRE(n > 0);
  return s;
}

bool any_text(const perfsage::v1::AnalysisReport& r, const std::string& needle) {
  for (const auto& f : r.recommendations())
    if (f.title().find(needle) != std::string::npos ||
        f.message().find(needle) != std::string::npos ||
        (f.action().has_code_hint() &&
         f.action().code_hint().hint().find(needle) != std::string::npos))
      return true;
  return false;
}

}  // namespace

TEST_CASE("exposed communication advice follows the collective on a real DDP trace",
          "[gpu][samples]") {
  PERFSAGE_REQUIRE_SAMPLES();
  SECTION("as recorded: all-reduce, DDP bucketing, one of two ranks profiled") {
    auto r = analyze_json({sample(kDdpV100).string()});
    REQUIRE_FALSE(r.recommendations().empty());
    // The trace's main problem comes first.
    CHECK(r.recommendations(0).rule() == "exposed_communication");
    auto f = findings(r, "gpu_iteration", "exposed_communication");
    REQUIRE(f.size() == 1);
    CHECK(evidence_text(*f[0], "collective") == "AllReduce");
    CHECK(f[0]->message().find("bucket") != std::string::npos);
    CHECK(f[0]->message().find("Only 1 of the job's 2 ranks") != std::string::npos);
    // Its one cudaDeviceSynchronize comes after the last step: no sync finding.
    CHECK(findings(r, "gpu_runtime", "sync_api").empty());
    CHECK_FALSE(any_text(r, "cudaDeviceSynchronize"));
  }
  SECTION("the same kernels renamed SendRecv: no DDP bucketing advice") {
    TempDir dir;
    auto text = replace_all(perfsage::store::read_file(sample(kDdpV100)),
                            "ncclKernel_AllReduce_RING_LL", "ncclKernel_SendRecv_RING_LL");
    auto r = analyze_json({dir.write("sendrecv.pt.trace.json", text).string()});
    auto f = findings(r, "gpu_iteration", "exposed_communication");
    REQUIRE(f.size() == 1);
    CHECK(evidence_text(*f[0], "collective") == "SendRecv");
    CHECK(f[0]->message().find("bucket") == std::string::npos);
  }
}

TEST_CASE("an A100 trace relabelled as an MI250 gets ROCm advice", "[gpu][samples]") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto original = perfsage::store::read_file(sample(kAlexNetA100));
  auto text = replace_all(original, "NVIDIA A100-PG509-200", "AMD Instinct MI250X / MI250");
  text = replace_all(text, "\"computeMajor\": 8", "\"computeMajor\": 9");
  text = replace_all(text, "\"numSms\": 108", "\"numSms\": 110");
  TempDir dir;
  auto r = analyze_json({dir.write("mi250.pt.trace.json", text).string()});
  auto a100 = analyze_json({sample(kAlexNetA100).string()});
  // The same findings by rule, but for precision: the A100's TF32 advice is AMP on the MI250's
  // matrix cores.
  REQUIRE(r.recommendations_size() == a100.recommendations_size());
  for (int i = 0; i < r.recommendations_size(); ++i) {
    std::string rule = a100.recommendations(i).rule();
    if (rule == "fp32_without_tensor_cores") rule = "amd_fp32_without_matrix_cores";
    CHECK(r.recommendations(i).rule() == rule);
  }
  CHECK_FALSE(any_text(r, "TF32"));
  CHECK_FALSE(any_text(r, "Hopper"));
  CHECK_FALSE(any_text(r, "A100"));
}
