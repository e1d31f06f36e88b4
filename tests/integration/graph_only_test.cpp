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
