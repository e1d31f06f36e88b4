// Pattern matching over model graphs: DAG patterns, already-fused nodes, first-layer
// position, TransData chains from tensor formats, and the GE dump samples.
#include <catch2/catch.hpp>

#include "analyzer_resources.h"
#include "analyzers/graph/match_ops.h"
#include "analyzers/patterns/analyze_patterns.h"
#include "graph_test_util.h"
#include "store/run_writer.h"

using namespace perfsage;

namespace {

struct GraphBuilder {
  store::RunWriter& w;
  void node(const std::string& name, const std::string& type, const char* pass = nullptr,
            int64_t scope = -1) {
    store::GraphNode n;
    n.graph = "g";
    n.name = name;
    n.type = type;
    if (pass) n.pass_name = pass;
    if (scope >= 0) n.fusion_scope = scope;
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
  test::AnalysisStore db;
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
  analyzers::match_graph_to_ops(db, run);
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

TEST_CASE("an occurrence is fused only when its own members were merged") {
  test::AnalysisStore db;
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    GraphBuilder b{w};
    // The first convolution was fused with its BN and ReLU (one UB scope, 7), the Cast and
    // TransData in front of it were not: that is still the AIPP candidate. Further on, Conv_8
    // and Relu_9 share scope 9 (merged), Conv_10 came out of some other pass and Relu_11
    // stands alone (not merged with it), Conv_12 + Relu_13 were produced by the pattern's pass.
    b.node("input", "Data");
    b.node("Cast_1", "Cast");
    b.node("TransData_2", "TransData");
    b.node("Conv_3", "Conv2D", "TbeConvBnReluFusionPass", 7);
    b.node("BN_4", "BNInference", nullptr, 7);
    b.node("Relu_5", "Relu", nullptr, 7);
    b.node("Conv_8", "Conv2D", nullptr, 9);
    b.node("Relu_9", "Relu", nullptr, 9);
    b.node("Conv_10", "Conv2D", "ConvBiasAddFusionPass");
    b.node("Relu_11", "Relu");
    b.node("Conv_12", "Conv2D");
    b.node("Relu_13", "Relu", "TbeConvElemwiseFusionPass");
    const char* chain[] = {"input",  "Cast_1", "TransData_2", "Conv_3",  "BN_4",    "Relu_5",
                           "Conv_8", "Relu_9", "Conv_10",     "Relu_11", "Conv_12", "Relu_13"};
    for (size_t i = 0; i + 1 < std::size(chain); ++i) b.edge(chain[i], chain[i + 1]);
    w.commit();
  }
  analyzers::analyze_patterns(db, run, builtin());
  auto fused = [&](const std::string& nodes) {
    return test::text(db, "SELECT fused FROM fusion_candidates WHERE nodes='" + nodes + "'");
  };
  CHECK(fused("Cast_1;TransData_2;Conv_3") == "0");  // the AIPP candidate
  CHECK(fused("Conv_3;BN_4;Relu_5") == "1");
  CHECK(fused("Conv_8;Relu_9") == "1");
  CHECK(fused("Conv_10;Relu_11") == "0");
  CHECK(fused("Conv_12;Relu_13") == "1");
}

TEST_CASE("GE dump samples: graphs are matched without inventing candidates") {
  PERFSAGE_REQUIRE_SAMPLES();
  for (const char* file : {"ascend/oam-tools/ge_proto_00000001_Build.txt",
                           "ascend/oam-tools/ge_proto_00056_Build.txt"}) {
    test::Ingested in;
    test::ingest_into(in, {test::samples_dir() / file});
    store::ensure_derived_tables(in.db, analyzers::derived_tables());  // as an analysis does
    analyzers::match_graph_to_ops(in.db, in.run_id);
    auto s = analyzers::analyze_patterns(in.db, in.run_id, builtin());
    INFO(file);
    CHECK(s.source == "graph");
    CHECK(s.candidates == 0);  // Data/Unique/GatherV2/NetOutput hold no fusion pattern
    CHECK(s.chains == 0);      // and no TransData
  }
}

TEST_CASE("clean-ups from the structure: transposes, Cast round trips, only where provable") {
  test::AnalysisStore db;
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    auto node = [&](const std::string& name, const std::string& type, const std::string& attrs) {
      store::GraphNode n;
      n.graph = "g";
      n.name = name;
      n.type = type;
      n.attrs = attrs;
      n.source = "ge:Build";
      w.add(n);
    };
    auto edge = [&](const std::string& a, const std::string& b) {
      store::GraphEdge e;
      e.graph = "g";
      e.src = a;
      e.dst = b;
      w.add(e);
    };
    auto dtype = [&](const std::string& n, const char* dir, const char* t) {
      store::TensorDesc d;
      d.graph = "g";
      d.node = n;
      d.direction = dir;
      d.dtype = t;
      w.add(d);
    };
    // t1 -> t2 cancel ([0,2,1,3] is its own inverse); t3 -> t4 do not ([1,2,0] twice).
    node("t1", "Transpose", R"({"perm":[0,2,1,3]})");
    node("t2", "Transpose", R"({"perm":[0,2,1,3]})");
    node("t0", "TransposeD", R"({"perm":[0,1,2]})");
    node("t3", "Transpose", R"({"perm":[1,2,0]})");
    node("t4", "Transpose", R"({"perm":[1,2,0]})");
    edge("t1", "t2");
    edge("t3", "t4");
    // INT32 -> INT64 -> INT32: exact; FLOAT -> INT32 -> FLOAT truncates: not a round trip to
    // remove; a pair whose input type is unknown is not reported.
    for (auto [a, b, from, mid] :
         std::vector<std::tuple<const char*, const char*, const char*, const char*>>{
             {"c1", "c2", "INT32", "INT64"},
             {"c3", "c4", "FLOAT", "INT32"},
             {"c5", "c6", nullptr, "FLOAT16"}}) {
      node(a, "Cast", "{}");
      node(b, "Cast", "{}");
      edge(a, b);
      if (from) dtype(a, "input", from);
      dtype(a, "output", mid);
      dtype(b, "output", from ? from : "FLOAT");
    }
    w.commit();
  }
  analyzers::analyze_patterns(db, run, builtin());
  CHECK(test::text(db,
                   "SELECT group_concat(kind || ':' || nodes || ':' || exact || ':' || "
                   "coalesce(detail, ''), ' | ') FROM (SELECT * FROM graph_cleanups "
                   "ORDER BY nodes)") ==
        "cast_round_trip:c1;c2:1:INT32>INT64>INT32 | transpose_identity:t0:1:perm [0,1,2] | "
        "transpose_inverse:t1;t2:1:perm [0,2,1,3] then [0,2,1,3]");
  // No tensor bytes recorded: shares are by node count (2 of 11 compute nodes for a pair).
  CHECK(
      test::text(db, "SELECT round(structural_share, 4) FROM graph_cleanups WHERE nodes='c1;c2'") ==
      "0.1818");
}
