// A model graph alone (no profile) gets the advice msadvisor gives from an offline model, with
// structural estimates: a GE build dump of a ResNet-style stem and an ONNX model written by
// torch.onnx.export (both made by the scripts beside them in tests/fixtures/graph/structure).
#include "cli_support.h"

using namespace perfsage::test;
namespace fs = std::filesystem;

namespace {
fs::path fixture(const std::string& rel) {
  return source_dir() / "tests" / "fixtures" / "graph" / rel;
}

// No finding of a graph alone is high: a structural estimate never proves a large loss.
void no_high(const perfsage::v1::AnalysisReport& report) {
  for (const auto& r : report.recommendations()) {
    INFO(r.pack() << "/" << r.rule());
    CHECK(sev(r) != "high");
    CHECK(sev(r) != "critical");
    CHECK_THAT(r.message() + r.title(), !Catch::Contains("{?"));
  }
}
}  // namespace

TEST_CASE("GE build graph alone: AIPP before a fused first conv, unfused Conv+BN+ReLU, TransData") {
  auto report = analyze_json({fixture("structure/resnet_stem_Build.txt").string()});
  CHECK(report.base().kind() == "none");
  no_high(report);

  // The first convolution was fused with its BN and ReLU; the Cast/TransData in front of it
  // were not: that is the AIPP candidate. Its share by hand: the Cast (2,408,480 bytes) and
  // TransData (12,845,088) outputs over all compute nodes' outputs (79,499,552) = 19.19 %.
  auto aipp = findings(report, "ub_fusion", "aipp_structural");
  REQUIRE(aipp.size() == 1);
  CHECK(has_subject(*aipp[0], "conv1"));
  CHECK(sev(*aipp[0]) == "medium");
  CHECK(evidence_number(*aipp[0], "saved_bytes") == 15253568);
  CHECK(aipp[0]->estimated_gain_share() == Approx(15253568.0 / 79499552.0));
  CHECK_THAT(aipp[0]->message(), Catch::Contains("profile the run to measure"));

  // conv2 -> bn2 -> relu2 ran as three kernels: conv2's and bn2's outputs (3,211,296 each).
  auto ub = findings(report, "ub_fusion", "ub_fusion_pattern_structural");
  REQUIRE(ub.size() == 1);
  CHECK(has_subject(*ub[0], "conv2"));
  CHECK(evidence_number(*ub[0], "saved_bytes") == 2 * 3211296);
  CHECK(ub[0]->estimated_gain_share() == Approx(2 * 3211296.0 / 79499552.0));
  // conv1+bn1+relu1 and conv3+bn3 share their fusion scopes: not candidates.
  CHECK_FALSE(any_subject(ub, "conv1"));
  CHECK_FALSE(any_subject(ub, "conv3"));
  CHECK(findings(report, "ub_fusion", "ub_fusion_structural").empty());

  // add1 (3,211,296 bytes) -> relu4: the residual Add and its ReLU are two kernels.
  auto chain = findings(report, "ub_fusion", "eltwise_chain_structural");
  REQUIRE(chain.size() == 1);
  CHECK(has_subject(*chain[0], "add1"));
  CHECK(evidence_number(*chain[0], "saved_bytes") == 3211296);
  CHECK(chain[0]->estimated_gain_share() == Approx(3211296.0 / 79499552.0));
  CHECK_FALSE(any_subject(chain, "relu1"));  // in conv1's fusion scope

  auto td = findings(report, "transdata", "transdata_structural");
  REQUIRE(td.size() == 1);
  CHECK(has_subject(*td[0], "trans_TransData_10"));
  CHECK(evidence_text(*td[0], "kind") == "reshape_interrupt");
  // trans_TransData_1 (input NCHW -> NC1HWC0) is a single conversion: the AIPP finding's.
  CHECK_FALSE(any_subject(td, "trans_TransData_1"));

  auto aicpu = findings(report, "aicpu", "aicpu_graph_node");
  REQUIRE(aicpu.size() == 1);
  CHECK(has_subject(*aicpu[0], "argmax"));
  // No timing: nothing that needs a profile fires.
  CHECK(findings(report, "transdata", "transdata_share").empty());
  CHECK(findings(report, "ub_fusion", "aipp_first_layer").empty());
}

TEST_CASE("ONNX model from torch.onnx.export: BN folds, the fp16 round trip, Identity nodes") {
  auto report = analyze_json({fixture("structure/resnet_block.onnx").string()});
  no_high(report);
  // Three Conv -> BatchNormalization pairs in inference form; one node each of 25 - 10 (the
  // Identity nodes count as compute nodes too: 25 nodes in all).
  auto bn = findings(report, "graph_cleanup", "fold_batchnorm");
  CHECK(bn.size() == 3);
  CHECK(any_subject(bn, "/conv/Conv"));
  CHECK(any_subject(bn, "/block/conv1/Conv"));
  CHECK(any_subject(bn, "/block/conv2/Conv"));
  for (const auto* f : bn) CHECK(f->estimated_gain_share() == Approx(1.0 / 25));
  // x.half().float(): the input type is carried from the graph input through Conv, BN, Relu
  // and Add; the finding says the outputs change.
  auto cast = findings(report, "graph_cleanup", "cast_round_trip_precision");
  REQUIRE(cast.size() == 1);
  CHECK(has_subject(*cast[0], "/Cast"));
  CHECK(evidence_text(*cast[0], "types") == "FLOAT>FLOAT16>FLOAT");
  CHECK_THAT(cast[0]->message(), Catch::Contains("CHANGES THE OUTPUTS"));
  CHECK(cast[0]->action().onnx_rewrite().opt_in());
  CHECK(findings(report, "graph_cleanup", "cast_round_trip_exact").empty());
  CHECK(findings(report, "graph_cleanup", "identity_node").size() == 10);
  // Not compiled yet: Conv+Relu pairs are not UB fusion findings.
  CHECK(findings(report, "ub_fusion", "ub_fusion_structural").empty());
  CHECK(findings(report, "ub_fusion", "ub_fusion_pattern_structural").empty());
}

TEST_CASE("ONNX exported for training: its Dropout is not an inference leftover") {
  // torch.onnx.export in TrainingMode.TRAINING keeps Dropout with training_mode = true
  // (make_training_export_onnx.py); eval exports drop it, so no torch export holds the
  // inference clean-up.
  auto report = analyze_json({fixture("structure/training_export.onnx").string()});
  no_high(report);
  CHECK(findings(report, "graph_cleanup", "dropout_inference").empty());
  CHECK(findings(report, "graph_cleanup", "identity_node").empty());
  CHECK(report.recommendations_size() == 0);
}

TEST_CASE("GE build graph alone: an unfolded bias Add and an unfused element-wise chain") {
  // make_dense_ge.py. Compute nodes' output bytes by hand (GE sizes: bytes rounded up to 32,
  // plus 32): mm1, add1 32,800 each; mm2, res, muls1, relu1 16,416 each; mm3, mul3, adds3,
  // relu3 8,224 each; cast4, sub4, exp4, log4 16,416 each; mm5, add5 8,224 each: 246,272.
  auto report = analyze_json({fixture("structure/dense_head_Build.txt").string()});
  no_high(report);
  const double total = 246272;

  auto bias = findings(report, "ub_fusion", "matmul_bias_add_structural");
  REQUIRE(bias.size() == 1);
  CHECK(has_subject(*bias[0], "mm1"));
  CHECK(evidence_text(*bias[0], "shapes") == "[32,512] + bias [512], FLOAT16");
  CHECK(evidence_number(*bias[0], "saved_bytes") == 32800);
  CHECK(bias[0]->estimated_gain_share() == Approx(32800 / total));
  CHECK(sev(*bias[0]) == "medium");
  CHECK_THAT(bias[0]->message(), Catch::Contains("fp32") && Catch::Contains("profile the run"));
  CHECK(bias[0]->action().fusion_switch().enable(0) == "MatMulBiasAddFusionPass");
  CHECK(bias[0]->action().fusion_switch().scope() == "GraphFusion");

  // res -> muls1 -> relu1: the outputs of res and muls1 stay on chip once fused.
  auto chain = findings(report, "ub_fusion", "eltwise_chain_structural");
  REQUIRE(chain.size() == 1);
  CHECK(has_subject(*chain[0], "res"));
  CHECK(evidence_number(*chain[0], "ops") == 3);
  CHECK(evidence_number(*chain[0], "saved_bytes") == 2 * 16416);
  CHECK(chain[0]->estimated_gain_share() == Approx(2 * 16416 / total));
  CHECK(chain[0]->action().fusion_switch().enable(0) == "TbeEltwiseFusionPass");

  // Not candidates: mm2's Add reads a full tensor (a residual), mm3 has its bias folded and
  // mul3..relu3 share a fusion scope, sub4 has two readers, mm5's product is recorded in
  // FRACTAL_NZ (logical shape unknown), and the second graph has dynamic shapes.
  for (const char* node : {"mm2", "mm3", "mul3", "cast4", "sub4", "exp4", "mm5", "dmm", "dmul"}) {
    INFO(node);
    CHECK_FALSE(any_subject(bias, node));
    CHECK_FALSE(any_subject(chain, node));
  }
}

TEST_CASE("ONNX dense block from torch.onnx.export: MatMul + bias Add, element-wise chains") {
  // make_dense_onnx.py; shapes recorded by onnx.shape_inference. 13 compute nodes (the three
  // Constant nodes move no data): each estimate is the nodes fusion removes over 13.
  auto report = analyze_json({fixture("structure/dense_block.onnx").string()});
  no_high(report);

  // x @ w + b, 2-D with constant weight and bias: the Gemm rewrite, applied by the action.
  auto gemm = findings(report, "ub_fusion", "matmul_bias_add_gemm");
  REQUIRE(gemm.size() == 1);
  CHECK(has_subject(*gemm[0], "/MatMul"));
  CHECK(evidence_text(*gemm[0], "shapes") == "[4,32] + bias [32], FLOAT");
  CHECK(gemm[0]->action().onnx_rewrite().pass() == "fuse_matmul_add");
  CHECK(gemm[0]->estimated_gain_share() == Approx(1.0 / 13));
  // The Linear on a 3-D input: MatMul + Add of the bias [8]; Gemm is 2-D only, so the fix is
  // the compiler's pass.
  auto batched = findings(report, "ub_fusion", "matmul_bias_add_onnx");
  REQUIRE(batched.size() == 1);
  CHECK(has_subject(*batched[0], "/lin/MatMul"));
  CHECK(evidence_text(*batched[0], "shapes") == "[2,4,8] + bias [8], FLOAT");
  CHECK(batched[0]->action().fusion_switch().enable(0) == "MatMulBiasAddFusionPass");
  // The residual: /res/MatMul's Add reads the ReLU's full [4,32] output, not a bias.
  CHECK_FALSE(any_subject(gemm, "/res/MatMul"));
  CHECK_FALSE(any_subject(batched, "/res/MatMul"));

  // relu(h * 2 + 1): Mul, Add, Relu (the bias Add before them is folded into the MatMul
  // first); (res + y) * 3: Add, Mul, which ends the chain because its result is also a graph
  // output, so the Exp reading it is not part of it.
  auto chains = findings(report, "ub_fusion", "eltwise_chain_onnx");
  REQUIRE(chains.size() == 2);
  CHECK(any_subject(chains, "/Mul"));
  CHECK(any_subject(chains, "/Add_2"));
  for (const auto* f : chains) {
    INFO(f->message());
    CHECK_THAT(f->message(), !Catch::Contains("/Exp") && !Catch::Contains("/Add;"));
    CHECK(f->estimated_gain_share() == Approx((evidence_number(*f, "ops") - 1) / 13.0));
  }
  CHECK(findings(report, "ub_fusion", "eltwise_chain_structural").empty());
}

TEST_CASE("ONNX exports without static shapes: no shape-checked fusion advice") {
  // The raw export records no intermediate shapes; the dynamic one has a symbolic batch.
  for (const char* file :
       {"structure/dense_block_raw.onnx", "structure/dense_block_dynamic.onnx"}) {
    INFO(file);
    auto report = analyze_json({fixture(file).string()});
    for (const char* rule : {"matmul_bias_add_gemm", "matmul_bias_add_onnx", "eltwise_chain_onnx"})
      CHECK(findings(report, "ub_fusion", rule).empty());
  }
}
