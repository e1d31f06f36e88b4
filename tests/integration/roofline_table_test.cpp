// The roofline on a made-up op table, end to end (collector, analyzers, pack): a FlashAttention
// in SBH layout is counted with its real sequence length, a TND one is not guessed, and a point
// above its roof is a data problem, never a finding.
#include <sstream>

#include "cli_support.h"

using namespace perfsage::test;

namespace {

// kernel_details.csv of two steps on a 910B-class part (block dim 24): per step a
// FlashAttentionScore with query [S=4096, B=2, H=512] (SBH: the softmax statistics
// [B=2, N=4, S=4096, 8] name B, N and S) taking 280 us, one in TND without the sequence
// lengths (150 us), and a 4096^3 BF16 MatMul taking an impossible 120 us.
std::string op_table() {
  std::ostringstream o;
  o << "Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),"
       "Duration(us),Wait Time(us),Block Dim,Mix Block Dim,Input Shapes,Input Data Types,"
       "Input Formats,Output Shapes,Output Data Types,Output Formats\n";
  double t = 1700000000000000.0;
  auto row = [&](int step, int task, const char* name, const char* type, const char* core,
                 double dur, const char* in, const char* in_types, const char* out,
                 const char* out_types) {
    o.precision(3);
    o << std::fixed << step << ",4294967295," << task << ",2," << name << "," << type << "," << core
      << "," << t << "," << dur << ",1.0,24,48,\"" << in << "\"," << in_types << ",ND,\"" << out
      << "\"," << out_types << ",ND\n";
    t += dur + 5;
  };
  for (int step = 1; step <= 2; ++step) {
    row(step, 1, "FlashAttentionScore_1", "FlashAttentionScore", "MIX_AIC", 280,
        "4096,2,512;4096,2,512;4096,2,512", "BF16;BF16;BF16", "2,4,4096,8;2,4,4096,8;0;4096,2,512",
        "FLOAT;FLOAT;BF16;BF16");
    row(step, 2, "FlashAttentionScore_2", "FlashAttentionScore", "MIX_AIC", 150,
        "8192,8,128;8192,8,128;8192,8,128", "BF16;BF16;BF16", "8192,8,8;8192,8,8;0;8192,8,128",
        "FLOAT;FLOAT;BF16;BF16");
    row(step, 3, "MatMul_1", "MatMulV2", "AI_CORE", 120, "4096,4096;4096,4096", "BF16;BF16",
        "4096,4096", "BF16");
  }
  return o.str();
}

}  // namespace

TEST_CASE("made-up op table: SBH attention counted right, TND not guessed, above-roof excluded") {
  TempDir dir;
  auto file = dir.write("kernel_details.csv", op_table());
  auto store = (dir.path() / "s.db").string();
  auto report = analyze_json({file.string(), "--store", store, "--kb", "roofline"});
  auto value = [&](const std::string& sql) {
    auto q = run_command("query", {"--store", store, "--header", "0", sql});
    REQUIRE(q.code == 0);
    return q.out;
  };
  // 4 * B * N * S * S * D = 4 * 2 * 4 * 4096 * 4096 * 128 = 68.7 GFLOP per execution (S = 2
  // would give 134 MFLOP), two executions.
  CHECK(std::stod(value("SELECT flops FROM roofline_ops WHERE name = 'FlashAttentionScore_1'")) ==
        Approx(2 * 4.0 * 2 * 4 * 4096 * 4096 * 128));
  // At 68.7 GFLOP per 280 us it runs at about 70 % of the bf16 roof: compute side, never the
  // memory side.
  for (const char* rule : {"memory_side", "latency_bound", "tiny_launches"})
    CHECK_FALSE(any_subject(findings(report, "roofline", rule), "FlashAttentionScore_1"));
  auto compute = findings(report, "roofline", "compute_side");
  REQUIRE(compute.size() == 1);
  CHECK(has_subject(*compute[0], "FlashAttentionScore_1"));
  CHECK(evidence_number(*compute[0], "utilisation") > 0.5);
  // TND without the sequence lengths: no point, counted instead.
  CHECK_THAT(value("SELECT reason FROM roofline_ops WHERE name = 'FlashAttentionScore_2'"),
             Catch::Contains("TND"));
  auto no_model = findings(report, "roofline", "no_flop_model");
  REQUIRE(no_model.size() == 1);
  CHECK(evidence_number(*no_model[0], "ops_without_model") == 1);
  CHECK(evidence_text(*no_model[0], "example") == "FlashAttentionScore_2");
  // 2 * 4096^3 FLOP in 120 us is 2.3 PFLOP/s, above the part's bf16 peak: a data problem,
  // excluded, and no finding about the op itself.
  auto above = findings(report, "roofline", "above_roof");
  REQUIRE(above.size() == 1);
  CHECK(has_subject(*above[0], "MatMul_1"));
  CHECK(evidence_number(*above[0], "max_utilisation") > 1);
  CHECK(sev(*above[0]) == "info");
  CHECK(value("SELECT bound FROM roofline_ops WHERE name = 'MatMul_1'") == "invalid\n");
  for (const auto& r : report.recommendations())
    if (r.rule() != "above_roof") CHECK_FALSE(has_subject(r, "MatMul_1"));
}
