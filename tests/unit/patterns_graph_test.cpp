// Pattern matching over model graphs: DAG patterns, already-fused nodes, first-layer
// position, TransData chains from tensor formats, and the GE dump samples.
#include <catch2/catch.hpp>

#include "analyzers/patterns/analyze_patterns.h"
#include "graph_test_util.h"
#include "store/run_writer.h"

using namespace perfsage;

namespace {

struct GraphBuilder {
  store::RunWriter& w;
  void node(const std::string& name, const std::string& type, const char* pass = nullptr) {
    store::GraphNode n;
    n.graph = "g";
    n.name = name;
    n.type = type;
    if (pass) n.pass_name = pass;
    w.add(n);
  }
  void edge(const std::string& a, const std::string& b) {
    store::GraphEdge e;
    e.graph = "g";
    e.src = a;
    e.dst = b;
    w.add(e);
  }
  void formats(const std::string& node, const char* in, const char* out) {
    for (auto [dir, f] : {std::pair{"input", in}, std::pair{"output", out}}) {
      store::TensorDesc t;
      t.graph = "g";
      t.node = node;
      t.direction = dir;
      t.format = f;
      w.add(t);
    }
  }
  void op(const std::string& name, const std::string& type, double us) {
    store::OpTask t;
    t.name = name;
    t.type = type;
    t.core_type = "AI_CORE";
    t.start_ns = static_cast<int64_t>(order++ * 1000000);
    t.dur_ns = static_cast<int64_t>(us * 1000);
    w.add(t);
  }
  int order = 0;
};

std::vector<analyzers::patterns::Pattern> builtin() {
  return analyzers::patterns::load_patterns(std::filesystem::path(PERFSAGE_SOURCE_DIR) /
                                            "knowledge_bases" / "patterns");
}

}  // namespace

TEST_CASE("graph patterns: DAGs, fused nodes, first layer and TransData chains") {
  store::Database db(":memory:");
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    GraphBuilder b{w};
    // Input -> TransData -> Conv -> BN -> Relu -> TransData -> Reshape -> TransData -> Conv2.
    b.node("input", "Data");
    b.node("TransData_0", "TransData");
    b.node("Conv_1", "Conv2D");
    b.node("BN_2", "BNInference");
    b.node("Relu_3", "Relu");
    b.node("TransData_4", "TransData");
    b.node("Reshape_5", "Reshape");
    b.node("TransData_6", "TransData");
    b.node("Conv_7", "Conv2D");
    b.node("Relu_8", "Relu", "TbeConvElemwiseFusionPass");  // already fused
    for (auto [a, c] :
         std::vector<std::pair<const char*, const char*>>{{"input", "TransData_0"},
                                                          {"TransData_0", "Conv_1"},
                                                          {"Conv_1", "BN_2"},
                                                          {"BN_2", "Relu_3"},
                                                          {"Relu_3", "TransData_4"},
                                                          {"TransData_4", "Reshape_5"},
                                                          {"Reshape_5", "TransData_6"},
                                                          {"TransData_6", "Conv_7"},
                                                          {"Conv_7", "Relu_8"}})
      b.edge(a, c);
    b.formats("TransData_0", "NCHW", "NC1HWC0");
    b.formats("TransData_4", "NC1HWC0", "NCHW");
    b.formats("TransData_6", "NCHW", "NC1HWC0");
    // Depthwise conv + swish: the DAG pattern wins over the smaller DepthwiseConv+Mul chain.
    b.node("DW_9", "DepthwiseConv2D");
    b.node("Sig_10", "Sigmoid");
    b.node("Mul_11", "Mul");
    b.edge("Conv_7", "DW_9");
    b.edge("DW_9", "Sig_10");
    b.edge("Sig_10", "Mul_11");
    b.edge("DW_9", "Mul_11");
    b.op("TransData_0", "TransData", 10);
    b.op("Conv_1", "Conv2D", 100);
    b.op("BN_2", "BNInference", 20);
    b.op("Relu_3", "Relu", 5);
    b.op("TransData_4", "TransData", 7);
    b.op("Reshape_5", "Reshape", 1);
    b.op("TransData_6", "TransData", 8);
    b.op("Conv_7", "Conv2D", 90);
    b.op("Relu_8", "Relu", 4);
    b.op("DW_9", "DepthwiseConv2D", 30);
    b.op("Sig_10", "Sigmoid", 3);
    b.op("Mul_11", "Mul", 2);
    w.commit();
  }
  auto s = analyzers::analyze_patterns(db, run, builtin());
  CHECK(s.source == "graph");
  CHECK(test::count(db, "SELECT count(*) FROM graph_op_matches") >= 12);

  auto by_pattern = [&](const std::string& p) {
    return test::text(db,
                      "SELECT nodes || '|' || fused || '|' || total_us FROM fusion_candidates "
                      "WHERE pattern='" +
                          p + "'");
  };
  CHECK(by_pattern("first_layer_cast_transdata_conv") == "TransData_0;Conv_1|0|110.0");
  CHECK(by_pattern("conv_bn_relu") == "Conv_1;BN_2;Relu_3|0|125.0");
  CHECK(by_pattern("conv_relu") == "Conv_7;Relu_8|1|94.0");  // fused: kept, marked
  CHECK(by_pattern("depthwise_conv_swish") == "DW_9;Sig_10;Mul_11|0|35.0");
  CHECK(by_pattern("depthwise_conv_mul") == "<none>");
  // TransData_6 -> Conv_7 is not the first layer: only one AIPP candidate.
  CHECK(test::count(db, "SELECT count(*) FROM fusion_candidates WHERE kind='aipp'") == 1);

  CHECK(test::text(db,
                   "SELECT nodes || '|' || culprit || '|' || formats FROM transdata_chains "
                   "WHERE kind='reshape_interrupt'") ==
        "TransData_4;Reshape_5;TransData_6|Reshape_5|NC1HWC0>NCHW>NC1HWC0");
  CHECK(test::text(db, "SELECT total_us FROM transdata_chains WHERE kind='reshape_interrupt'") ==
        "15.0");
  CHECK(
      test::text(
          db, "SELECT group_concat(kind) FROM transdata_chains WHERE kind<>'reshape_interrupt'") ==
      "4d_5hd");
}

TEST_CASE("GE dump samples: graphs are matched without inventing candidates") {
  PERFSAGE_REQUIRE_SAMPLES();
  for (const char* file : {"ascend/oam-tools/ge_proto_00000001_Build.txt",
                           "ascend/oam-tools/ge_proto_00056_Build.txt"}) {
    test::Ingested in;
    test::ingest_into(in, {test::samples_dir() / file});
    auto s = analyzers::analyze_patterns(in.db, in.run_id, builtin());
    INFO(file);
    CHECK(s.source == "graph");
    CHECK(s.candidates == 0);  // Data/Unique/GatherV2/NetOutput hold no fusion pattern
    CHECK(s.chains == 0);      // and no TransData
  }
}
