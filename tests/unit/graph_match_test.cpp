// Matching graph nodes to profiled op names (analyzers/graph).
#include "analyzer_resources.h"
#include "analyzers/graph/match_ops.h"
#include "analyzers/graph/name_match.h"
#include "graph_test_util.h"
#include "store/bind.h"

using namespace perfsage;
using perfsage::test::count;
using perfsage::test::text;
namespace ag = perfsage::analyzers::graph;

namespace {
store::GraphNode gnode(const std::string& graph, const std::string& name, const std::string& type,
                       store::OptText original = {}) {
  store::GraphNode n;
  n.graph = graph;
  n.name = name;
  n.type = type;
  n.original_ops = std::move(original);
  return n;
}
store::OpTask task(const std::string& name, int64_t dur_ns = 1000) {
  store::OpTask t;
  t.name = name;
  t.type = std::string(1, 'T');  // not = "T": GCC 12 reports a false -Wrestrict
  t.core_type = "AI_CORE";
  t.dur_ns = dur_ns;
  return t;
}
}  // namespace

TEST_CASE("word boundaries for embedded node names") {
  CHECK(ag::starts_word("Conv_0Relu_1", 0));
  CHECK(ag::starts_word("Conv_0Relu_1", 6));  // digit -> letter
  CHECK_FALSE(ag::starts_word("Conv_0Relu_1", 7));
  CHECK(ag::ends_word("Conv_0Relu_1", 6));
  CHECK_FALSE(ag::ends_word("Conv_12", 6));  // "Conv_1" inside "Conv_12" is not a word
  CHECK(ag::starts_word("blockA/convB", 7));
  CHECK(ag::starts_word("matMul", 3));  // lower -> upper
}

TEST_CASE("name index: exact beats trans_ prefix beats original beats embedded") {
  ag::NameIndex idx({{"g", "Conv_3"},
                     {"g", "Relu_4"},
                     {"g", "TransData_20"},
                     {"g", "fused_ab"},
                     {"g", "trans_Cast_7"},
                     {"g", "Conv_12"}},
                    {{}, {}, {}, {"a_op", "b_op"}, {}, {}});
  auto one = [&](std::string_view op) {
    auto m = idx.match(op);
    REQUIRE(m.size() == 1);
    return std::pair{idx.nodes()[m[0].node].name, std::string(ag::match_kind_name(m[0].kind))};
  };
  CHECK(one("Conv_3") == std::pair<std::string, std::string>{"Conv_3", "exact"});
  CHECK(one("trans_TransData_20") ==
        std::pair<std::string, std::string>{"TransData_20", "trans_prefix"});
  CHECK(one("Cast_7") == std::pair<std::string, std::string>{"trans_Cast_7", "trans_prefix"});
  CHECK(one("b_op") == std::pair<std::string, std::string>{"fused_ab", "original"});
  auto fused = idx.match("Conv_3Relu_4");
  REQUIRE(fused.size() == 2);
  CHECK(idx.nodes()[fused[0].node].name == "Conv_3");
  CHECK(idx.nodes()[fused[1].node].name == "Relu_4");
  CHECK(fused[0].kind == ag::MatchKind::fused);
  // Conv_1 is not embedded in Conv_12; nothing at all matches an unrelated name.
  CHECK(idx.match("Conv_123").empty());
  CHECK(idx.match("MatMul_9").empty());
}

TEST_CASE("match_graph_to_ops fills graph_op_matches per run and is repeatable") {
  test::AnalysisStore db;
  int64_t run = 0;
  {
    store::RunWriter w(db, {"job", {}, "fp", "now"});
    run = w.run_id();
    w.add(gnode("g", "conv1", "Conv2D"));
    w.add(gnode("g", "bn_relu", "BNRelu", "[\"bn1\",\"relu1\"]"));
    w.add(gnode("g", "TransData_20", "TransData"));
    w.add(gnode("sub", "conv1", "Conv2D"));  // same name in another graph: both match
    w.add(gnode("g", "idle", "Data"));
    for (auto* n : {"conv1", "conv1", "bn1", "trans_TransData_20", "unknown_op"}) w.add(task(n));
    w.commit();
  }
  analyzers::match_graph_to_ops(db, run);
  analyzers::match_graph_to_ops(db, run);  // replaces, never duplicates
  CHECK(count(db, "SELECT count(*) FROM graph_op_matches") == 4);
  CHECK(count(db,
              "SELECT count(*) FROM graph_op_matches WHERE node='conv1' AND "
              "op_name='conv1' AND match='exact'") == 2);
  CHECK(text(db, "SELECT node || ' ' || match FROM graph_op_matches WHERE op_name='bn1'") ==
        "bn_relu original");
  CHECK(text(db,
             "SELECT node || ' ' || match FROM graph_op_matches WHERE "
             "op_name='trans_TransData_20'") == "TransData_20 trans_prefix");
  CHECK(count(db, "SELECT count(*) FROM graph_op_matches WHERE op_name='unknown_op'") == 0);
  store::Database empty(":memory:");
  analyzers::match_graph_to_ops(empty, 42);
  CHECK(count(empty, "SELECT count(*) FROM graph_op_matches") == 0);
}

TEST_CASE("the real GE dump matches profiled ops named like its nodes") {
  PERFSAGE_REQUIRE_SAMPLES();
  test::Ingested in;
  test::ingest_into(in, {test::samples_dir() / "ascend/oam-tools/ge_proto_00000001_Build.txt"});
  {
    // Profiled tasks as op_summary names them for this graph.
    auto st = in.db.prepare(
        "INSERT INTO op_tasks(run_id, name, type, core_type, dur_ns) "
        "VALUES(?1, ?2, ?3, ?4, 100)");
    store::insert(st, in.run_id, "Unique", "Unique", "AI_CPU");
    store::insert(st, in.run_id, "GatherV2", "GatherV2", "AI_CORE");
  }
  analyzers::match_graph_to_ops(in.db, in.run_id);
  CHECK(text(in.db,
             "SELECT n.engine FROM graph_op_matches m JOIN graph_nodes n ON "
             "n.run_id=m.run_id AND n.graph=m.graph AND n.name=m.node WHERE "
             "m.op_name='Unique'") == "DNN_VM_AICPU");
  CHECK(text(in.db,
             "SELECT n.block_dim FROM graph_op_matches m JOIN graph_nodes n ON "
             "n.graph=m.graph AND n.name=m.node WHERE m.op_name='GatherV2'") == "32");
}
