// GE graph dumps: the two real samples and synthetic dumps written into a TempDir.
#include "collectors/graph/ge_attr_value.h"
#include "collectors/graph/ge_dump_collector.h"
#include "collectors/graph/ge_text_parse.h"
#include "graph_test_util.h"
#include "store/file_bytes.h"

using namespace perfsage;
using perfsage::test::count;
using perfsage::test::text;

namespace {
const char* kRoot = "ge_default_20230713074125_11";
std::filesystem::path sample(const char* name) {
  return test::samples_dir() / "ascend" / "oam-tools" / name;
}
}  // namespace

TEST_CASE("ge_proto_00000001_Build: five graphs with resolved subgraphs") {
  PERFSAGE_REQUIRE_SAMPLES();
  test::Ingested in;
  test::ingest_into(in, {sample("ge_proto_00000001_Build.txt")});
  auto& db = in.db;
  REQUIRE(in.result.files.size() == 1);
  CHECK(in.result.files[0].collector == "ge-graph-dump");
  CHECK(in.result.files[0].skipped == 0);
  CHECK(count(db, "SELECT count(DISTINCT graph) FROM graph_nodes") == 5);
  CHECK(text(db, "SELECT graph FROM graph_attrs WHERE scope='structure' AND key='root'") == kRoot);
  CHECK(count(db, std::string("SELECT count(*) FROM graph_nodes WHERE type='PartitionedCall' "
                              "AND graph='") +
                      kRoot + "'") == 4);
  // Each PartitionedCall owns the subgraph its subgraph_name names.
  CHECK(count(db,
              "SELECT count(*) FROM graph_attrs WHERE scope='structure' AND key='parent_graph'"
              " AND value='ge_default_20230713074125_11'") == 4);
  CHECK(text(db,
             "SELECT value FROM graph_attrs WHERE key='parent_node' AND "
             "graph='ge_default_20230713074125_sub_2_unknow'") ==
        "ge_default_20230713074125_sub_2_unknow_PartitionedCall_2");
  CHECK(count(db, "SELECT count(*) FROM graph_nodes WHERE source='ge:Build'") ==
        count(db, "SELECT count(*) FROM graph_nodes"));
  CHECK(in.result.hints.framework == "ge");
  CHECK(in.result.hints.device == "ascend");
  CHECK(in.result.hints.chip == "Ascend910A");
}

TEST_CASE("ge_proto_00000001_Build: Unique runs on AI CPU whatever _engine_type says") {
  PERFSAGE_REQUIRE_SAMPLES();
  test::Ingested in;
  test::ingest_into(in, {sample("ge_proto_00000001_Build.txt")});
  auto& db = in.db;
  CHECK(text(db, "SELECT engine FROM graph_nodes WHERE type='Unique'") == "DNN_VM_AICPU");
  CHECK(text(db, "SELECT kernel_lib FROM graph_nodes WHERE type='Unique'") == "aicpu_tf_kernel");
  // The misleading attribute is kept for reference only.
  CHECK(text(db,
             "SELECT json_extract(attrs,'$._engine_type') FROM graph_nodes WHERE "
             "type='Unique'") == "AIcoreEngine");
  CHECK(text(db, "SELECT block_dim FROM graph_nodes WHERE type='GatherV2'") == "32");
  CHECK(text(db, "SELECT engine FROM graph_nodes WHERE type='GatherV2'") == "AIcoreEngine");
  CHECK(count(db, "SELECT count(*) FROM graph_nodes WHERE engine='DNN_VM_AICPU'") == 1);
}

TEST_CASE("ge_proto_00000001_Build: unknown-shape subgraphs and nodes are flagged") {
  PERFSAGE_REQUIRE_SAMPLES();
  test::Ingested in;
  test::ingest_into(in, {sample("ge_proto_00000001_Build.txt")});
  auto& db = in.db;
  CHECK(count(db,
              "SELECT count(*) FROM graph_attrs WHERE key='unknown_shape' AND "
              "graph LIKE '%_unknow'") == 3);
  CHECK(count(db,
              "SELECT count(*) FROM graph_nodes WHERE graph LIKE '%_unknow' AND "
              "coalesce(unknown_shape,0)!=1") == 0);
  CHECK(text(db, "SELECT unknown_shape FROM graph_nodes WHERE type='Unique'") == "1");
  // The root's PartitionedCall ops carry _is_unknown_shape themselves.
  CHECK(count(db,
              "SELECT count(*) FROM graph_nodes WHERE type='PartitionedCall' AND "
              "unknown_shape=1") >= 3);
}

TEST_CASE("ge_proto_00000001_Build: data and control edges from input lists") {
  PERFSAGE_REQUIRE_SAMPLES();
  test::Ingested in;
  test::ingest_into(in, {sample("ge_proto_00000001_Build.txt")});
  auto& db = in.db;
  CHECK(count(db,
              "SELECT count(*) FROM graph_edges WHERE control=1 AND dst='Node_Output' AND "
              "src='ge_default_20230713074125_sub_3_unknow_PartitionedCall_3' AND "
              "src_index IS NULL") == 1);
  CHECK(count(db,
              "SELECT count(*) FROM graph_edges WHERE control=0 AND dst='Node_Output' AND "
              "src='ge_default_20230713074125_sub_2_unknow_PartitionedCall_2' AND "
              "src_index=0 AND dst_index=0") == 1);
  CHECK(count(db, "SELECT count(*) FROM graph_edges WHERE control=1 AND src='ge_global_step'") ==
        1);
  // Every data edge's consumer and producer are nodes of the same graph.
  CHECK(count(db,
              "SELECT count(*) FROM graph_edges e WHERE NOT EXISTS (SELECT 1 FROM "
              "graph_nodes n WHERE n.graph=e.graph AND n.name=e.dst)") == 0);
  CHECK(count(db,
              "SELECT count(*) FROM graph_edges WHERE dst IN (SELECT name FROM graph_nodes "
              "WHERE type='GatherV2') AND control=0") >= 2);
}

TEST_CASE("ge_proto_00000001_Build: tensor descriptors and GE options") {
  PERFSAGE_REQUIRE_SAMPLES();
  test::Ingested in;
  test::ingest_into(in, {sample("ge_proto_00000001_Build.txt")});
  auto& db = in.db;
  CHECK(count(db,
              "SELECT count(*) FROM tensors WHERE node IN (SELECT name FROM graph_nodes "
              "WHERE type='GatherV2') AND direction='input'") >= 2);
  CHECK(count(db, "SELECT count(*) FROM tensors WHERE dtype LIKE 'DT_%'") == 0);
  CHECK(count(db, "SELECT count(*) FROM tensors WHERE format='ND'") > 0);
  CHECK(count(db,
              "SELECT count(*) FROM graph_attrs WHERE scope='GlobalOptions' AND "
              "key='ge.fusionSwitchFile' AND value=''") == 1);
  CHECK(text(db,
             "SELECT value FROM graph_attrs WHERE key='ge.graphRunMode' AND "
             "scope='GraphOptions' UNION ALL SELECT value FROM graph_attrs WHERE "
             "key='ge.graphRunMode' LIMIT 1") == "1");
  CHECK(text(db,
             "SELECT value FROM graph_attrs WHERE graph='' AND scope='model' AND "
             "key='target_type'") == "MINI");
  CHECK(count(db, "SELECT count(*) FROM graph_attrs WHERE key='precision_mode'") >= 1);
}

TEST_CASE("ge_proto_00056_Build: five ops, GatherV2D on AI Core with 16 blocks, not fused") {
  PERFSAGE_REQUIRE_SAMPLES();
  test::Ingested in;
  test::ingest_into(in, {sample("ge_proto_00056_Build.txt")});
  auto& db = in.db;
  CHECK(count(db, "SELECT count(*) FROM graph_nodes") == 5);
  CHECK(count(db, "SELECT count(DISTINCT graph) FROM graph_nodes") == 1);
  CHECK(count(db, "SELECT count(*) FROM graph_nodes WHERE type='Data'") == 2);
  CHECK(text(db, "SELECT engine FROM graph_nodes WHERE type='GatherV2D'") == "AIcoreEngine");
  CHECK(text(db, "SELECT kernel_lib FROM graph_nodes WHERE type='GatherV2D'") == "AIcoreEngine");
  CHECK(text(db, "SELECT block_dim FROM graph_nodes WHERE type='GatherV2D'") == "16");
  CHECK(text(db, "SELECT fusion_scope FROM graph_nodes WHERE type='GatherV2D'") == "-1");
  CHECK(text(db, "SELECT pass_name FROM graph_nodes WHERE type='GatherV2D'") == "<null>");
  CHECK(text(db, "SELECT engine FROM graph_nodes WHERE type='NetOutput'") == "DNN_VM_RTS");
  CHECK(count(db, "SELECT count(*) FROM graph_nodes WHERE engine='DNN_VM_AICPU'") == 0);
  // Unfused: original names are the op's own name or nothing.
  CHECK(count(db,
              "SELECT count(*) FROM graph_nodes n WHERE original_ops IS NOT NULL AND "
              "EXISTS (SELECT 1 FROM json_each(n.original_ops) j WHERE j.value!=n.name)") == 0);
  CHECK(text(db,
             "SELECT json_extract(attrs,'$.GatherV2_kernelname') FROM graph_nodes WHERE "
             "type='GatherV2D'")
            .rfind("te_gatherv2d_", 0) == 0);
  CHECK(text(db, "SELECT value FROM graph_attrs WHERE key='target_type'") != "<none>");
}

TEST_CASE("GE dump stage names come from the file name") {
  using collectors::graph::ge_dump_stage;
  CHECK(ge_dump_stage("ge_proto_00000001_Build.txt") == "Build");
  CHECK(ge_dump_stage("ge_proto_00056_Build.txt") == "Build");
  CHECK(ge_dump_stage("ge_proto_00000012_graph_3_PreRunAfterBuild.txt") == "PreRunAfterBuild");
  CHECK(ge_dump_stage("ge_proto_00000012_PreRunBegin.txt.gz") == "PreRunBegin");
  CHECK(ge_dump_stage("ge_proto_Build.txt") == "");
  CHECK(ge_dump_stage("model.txt") == "");
}

namespace {
// A two-graph dump with a fused op, a ^control input, an unknown field and a dangling subgraph.
const char* kSynthetic = R"(graph {
  name: "g0"
  op {
    name: "x"
    type: "Data"
    input: ""
    output_desc { dtype: DT_FLOAT16 shape { dim: 8 dim: 16 } layout: "NC1HWC0" size: 256
      attr { key: "origin_format" value { s: "NCHW" } } }
  }
  op {
    name: "conv_relu"
    type: "Conv2D"
    input: "x:0"
    input: "^init"
    future_field: 7
    attr { key: "pass_name" value { s: "TbeConvReluFusionPass" } }
    attr { key: "fusion_scope" value { i: 3 } }
    attr { key: "_datadump_original_op_names" value { list { s: "conv" s: "relu" } } }
    attr { key: "_lxfusion_engine_name" value { s: "AIcoreEngine" } }
    attr { key: "_ge_attr_op_kernel_lib_name" value { s: "AIcoreEngine" } }
    attr { key: "tvm_blockdim" value { i: 2 } }
    attr { key: "strides" value { list { i: 1 i: 1 } } }
    attr { key: "huge" value { list { i: 1 i: 2 i: 3 i: 4 i: 5 i: 6 i: 7 i: 8 i: 9 i: 10 i: 11 i: 12 i: 13 i: 14 i: 15 i: 16 i: 17 } } }
    subgraph_name: "missing_graph"
  }
  op { name: "init" type: "NoOp" }
}
graph { name: "g1" op { name: "y" type: "Data" } }
attr { key: "target_type" value { s: "CLOUD" } }
)";
}  // namespace

TEST_CASE("synthetic GE dump: fusion, control edges, unknown fields, dangling subgraphs") {
  test::TempDir dir;
  auto p = dir.write("ge_proto_00000003_graph_1_PreRunAfterBuild.txt", kSynthetic);
  test::Ingested in;
  test::ingest_into(in, {p});
  auto& db = in.db;
  CHECK(in.result.files[0].collector == "ge-graph-dump");
  CHECK(count(db, "SELECT count(*) FROM graph_nodes") == 4);
  CHECK(text(db, "SELECT pass_name FROM graph_nodes WHERE name='conv_relu'") ==
        "TbeConvReluFusionPass");
  CHECK(text(db, "SELECT fusion_scope FROM graph_nodes WHERE name='conv_relu'") == "3");
  CHECK(text(db, "SELECT original_ops FROM graph_nodes WHERE name='conv_relu'") ==
        "[\"conv\",\"relu\"]");
  CHECK(text(db, "SELECT source FROM graph_nodes WHERE name='conv_relu'") == "ge:PreRunAfterBuild");
  CHECK(text(db, "SELECT attrs FROM graph_nodes WHERE name='conv_relu'") ==
        "{\"strides\":[1,1],\"subgraph_name\":[\"missing_graph\"]}");
  CHECK(text(db, "SELECT unknown_shape FROM graph_nodes WHERE name='conv_relu'") == "<null>");
  CHECK(count(db,
              "SELECT count(*) FROM graph_edges WHERE src='init' AND dst='conv_relu' AND "
              "control=1") == 1);
  CHECK(count(db,
              "SELECT count(*) FROM graph_edges WHERE src='x' AND src_index=0 AND "
              "dst_index=0") == 1);
  CHECK(count(db, "SELECT count(*) FROM graph_edges") == 2);  // input "" is no edge
  CHECK(text(db,
             "SELECT shape || dtype || format || origin_format || bytes FROM tensors WHERE "
             "node='x'") == "[8,16]FLOAT16NC1HWC0NCHW256");
  auto warnings = test::all_warnings(in.result);
  CHECK_THAT(warnings,
             Catch::Contains("1 field not in perfsage's GE schema ignored (first at 15:"));
  CHECK_THAT(warnings, Catch::Contains("references subgraph missing_graph"));
}

TEST_CASE("malformed input references: strict names the op, lenient counts them") {
  std::string dump =
      "graph {\n  name: \"g\"\n  op { name: \"a\" type: \"Add\" input: \"b\" "
      "input: \"c:x\" input: \"c:0\" }\n  op { name: \"c\" type: \"Data\" }\n}\n";
  test::TempDir dir;
  auto p = dir.write("ge_proto_00000009_Build.txt", dump);
  test::Ingested strict;
  CHECK_THROWS_WITH(test::ingest_into(strict, {p}),
                    Catch::Contains("graph g op a input 0 \"b\"") &&
                        Catch::Contains("malformed input reference"));
  test::Ingested lenient;
  test::ingest_into(lenient, {p}, collectors::Mode::lenient);
  CHECK(lenient.result.files[0].skipped == 2);
  CHECK(count(lenient.db, "SELECT count(*) FROM graph_edges") == 1);
}

TEST_CASE("parallel chunked parsing gives the same model and the same errors as one parse") {
  PERFSAGE_REQUIRE_SAMPLES();
  std::string full = store::read_file(sample("ge_proto_00000001_Build.txt"));
  google::protobuf::Arena arena;
  std::vector<const ge::proto::ModelDef*> parts;
  auto r = collectors::graph::parse_model_parallel(full, 3, arena, parts);
  REQUIRE(r.ok);
  CHECK(parts.size() >= 2);
  CHECK(parts.size() <= 3);
  std::vector<std::string> names;
  for (const auto* p : parts) {
    for (const auto& g : p->graph()) names.push_back(g.name());
  }
  ge::proto::ModelDef whole;
  REQUIRE(collectors::graph::parse_model_text(full, 0, &whole).ok);
  REQUIRE(names.size() == static_cast<size_t>(whole.graph_size()));
  for (int i = 0; i < whole.graph_size(); ++i) CHECK(names[i] == whole.graph(i).name());
  CHECK(collectors::graph::find_attr(parts.back()->attr(), "target_type") != nullptr);

  // Damage in the middle: the reported position is the sequential parser's.
  size_t at = full.find("type: \"Unique\"");
  std::string bad = full.substr(0, at) + "type: Unique\"" + full.substr(at + 14);
  ge::proto::ModelDef seq;
  auto expected = collectors::graph::parse_model_text(bad, 0, &seq);
  REQUIRE_FALSE(expected.ok);
  auto got = collectors::graph::parse_model_parallel(bad, 4, arena, parts);
  CHECK_FALSE(got.ok);
  CHECK(got.where == expected.where);
  CHECK(got.message == expected.message);
}
