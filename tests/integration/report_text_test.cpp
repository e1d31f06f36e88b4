// Text a user can trust, on every input made in this project (traces from Debian's torch, ONNX
// models from torch.onnx.export, GE text dumps, Ascend tables and cluster files written by the
// scripts beside them): no unbound {?var} or ${param}, no internal convention ("-100 %"), no
// unformatted number in a title, message or hint, and gains on one base (0 <= share <= 1).
#include <cmath>
#include <regex>

#include "cli_support.h"
#include "unit/gpu_advice_traces.h"

using namespace perfsage::test;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> made_here_inputs() {
  const fs::path f = source_dir() / "tests" / "fixtures";
  const fs::path community = source_dir() / "knowledge_bases" / "community";
  return {
      f / "torch113" / "mish_cpu_trace.json.gz",
      f / "torch113" / "mlp_cpu_trace.json.gz",
      f / "torch113" / "gelu_cpu_trace.json.gz",
      f / "torch113" / "silu_lstm_cpu_trace.json.gz",
      f / "torch113" / "hand_activation_cpu_trace.json.gz",
      f / "torch113" / "gloo",
      f / "graph" / "structure" / "resnet_block.onnx",
      f / "graph" / "structure" / "resnet_stem_Build.txt",
      f / "graph" / "small_cnn.onnx",
      f / "daemon" / "ascend_run",
      source_dir() / "examples" / "resnet50_rank0_ascend_pt",
      f / "ascend" / "cluster_communication" / "cluster_communication.json",
      community / "ascend_precision" / "tests" / "fixtures" / "fp32_training_kernel_details.csv",
      community / "torch_data_parallel" / "tests" / "fixtures" / "ddp_gloo.pt.trace.json",
      community / "torch_data_parallel" / "tests" / "fixtures" / "dp_two_gpus.pt.trace.json"};
}

// Checks every finding of `report` as text for people; returns how many were checked.
int check_text(const perfsage::v1::AnalysisReport& report, const std::string& label) {
  // Placeholders, internal conventions, numbers printed raw (0.03392492, 1.2e+06), and a ratio
  // without its unit where a percentage is meant ("0.03392 of the step"); a quantity with its
  // unit (0.1667 FLOP/byte, 0.6401 GB/s) is text for people.
  static const std::regex raw(R"(\d\.\d{6,}|\de[+-]\d|\bnan\b|\binf\b|\bNULL\b|)"
                              R"(\b0\.\d{3,}(?![\d.])(?!\s*(FLOP|GB|MB|KB|B\b|bytes|µs|us|ms|s\b|%)))");
  int total = 0;
  for (const auto& r : report.recommendations()) {
    ++total;
    INFO(label << ": " << r.pack() << "/" << r.rule() << ": " << r.title());
    std::string text = r.title() + "\n" + r.message();
    if (r.action().has_code_hint()) text += "\n" + r.action().code_hint().hint();
    INFO(text);
    for (const char* bad : {"{?", "${", "-100 %"}) CHECK(text.find(bad) == std::string::npos);
    CHECK_FALSE(std::regex_search(text, raw));
    CHECK(std::isfinite(r.estimated_gain_us()));
    CHECK(r.estimated_gain_us() >= 0);
    CHECK(r.estimated_gain_share() >= 0);
    CHECK(r.estimated_gain_share() <= 1.0);
    // Titles name kernels by their short names: a whole templated signature is no title.
    CHECK(r.title().size() <= 200);
    // Evidence as the text report prints it (issue 26 item 16: "0.346517 ratio", "21845.6 us").
    for (const auto& e : r.evidence()) {
      INFO(e.name() << " = " << e.display() << " (" << e.unit() << ")");
      if (e.has_number()) CHECK(std::isfinite(e.number()));
      if (!e.has_number()) continue;
      CHECK_FALSE(e.display().empty());
      CHECK_FALSE(std::regex_search(e.display(), raw));
      if (e.unit() == "us") CHECK(std::regex_search(e.display(), std::regex(" (µs|ms|s)$")));
      if (e.unit() == "ratio") CHECK(std::regex_search(e.display(), std::regex(" %$")));
    }
    // Lists are lists (not one ';'-joined string), and a hint's AOE job type is the action's.
    const auto& a = r.action();
    std::vector<std::string> items(a.aoe().ops().begin(), a.aoe().ops().end());
    items.insert(items.end(), a.onnx_rewrite().nodes().begin(), a.onnx_rewrite().nodes().end());
    items.insert(items.end(), a.fusion_switch().enable().begin(), a.fusion_switch().enable().end());
    for (const auto& item : items) CHECK(item.find(';') == std::string::npos);
    auto job_type = a.aoe().hint().find("--job_type=");
    if (job_type != std::string::npos)
      CHECK(a.aoe().hint().substr(job_type + 11, 1) == std::to_string(a.aoe().job_type()));
  }
  return total;
}

}  // namespace

TEST_CASE("every finding on the inputs made here reads as text for people") {
  int total = 0;
  for (const auto& input : made_here_inputs())
    total += check_text(analyze_json({input.string()}), input.filename().string());
  CHECK(total >= 50);
}

TEST_CASE("every GPU finding on the traces made for the GPU advice reads as text for people") {
  // The traces of tests/unit/gpu_advice_traces.h: in-step and teardown syncs, device-to-host
  // copies, shallow and deep queues, CUDA graphs, collectives by type, FP32 on A100, V100 and
  // MI250, library and user kernels, a stub step, CUPTI ranges.
  int total = 0;
  for (const auto& [label, trace] : gpu_advice_traces()) {
    TempDir dir;
    auto path = dir.write("run.pt.trace.json", trace.json());
    total += check_text(analyze_json({path.string()}), label);
  }
  CHECK(total >= 15);
}
