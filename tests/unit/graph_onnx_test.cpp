// ONNX models: the generated fixtures (tests/fixtures/graph) and models built here in C++.
#include <fstream>

#include "collectors/graph/onnx_records.h"
#include "graph_test_util.h"
#include "perfsage/onnx/onnx.pb.h"
#include "proto/onnx_model.h"

using namespace perfsage;
using perfsage::test::count;
using perfsage::test::text;
namespace ox = perfsage::onnx;

namespace {
std::filesystem::path fixture(const char* name) {
  return test::source_dir() / "tests" / "fixtures" / "graph" / name;
}

void save(const ox::ModelProto& m, const std::filesystem::path& p) {
  std::ofstream out(p, std::ios::binary);
  REQUIRE(m.SerializeToOstream(&out));
}

ox::ModelProto model_with(const std::vector<ox::NodeProto>& nodes,
                          const std::vector<std::string>& inputs) {
  ox::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  for (const auto& in : inputs) {
    auto* vi = g->add_input();
    vi->set_name(in);
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(ox::TensorProto::FLOAT);
  }
  for (const auto& n : nodes) *g->add_node() = n;
  return m;
}

ox::NodeProto node(const std::string& type, const std::string& name,
                   const std::vector<std::string>& in, const std::vector<std::string>& out) {
  ox::NodeProto n;
  n.set_op_type(type);
  n.set_name(name);
  for (const auto& s : in) n.add_input(s);
  for (const auto& s : out) n.add_output(s);
  return n;
}
}  // namespace

TEST_CASE("small_cnn.onnx: nodes, synthesised names, attributes, opset") {
  test::Ingested in;
  test::ingest_into(in, {fixture("small_cnn.onnx")});
  auto& db = in.db;
  CHECK(in.result.files[0].collector == "onnx-model");
  CHECK(in.result.hints.framework == "onnx");
  CHECK(count(db, "SELECT count(*) FROM graph_nodes") == 8);
  CHECK(count(db, "SELECT count(*) FROM graph_nodes WHERE graph='small_cnn' AND source='onnx'") ==
        8);
  CHECK(count(db, "SELECT count(*) FROM graph_nodes WHERE type='Cast'") == 2);
  CHECK(text(db, "SELECT type FROM graph_nodes WHERE name='Relu_2'") == "Relu");
  CHECK(text(db,
             "SELECT json_extract(attrs,'$.kernel_shape') FROM graph_nodes WHERE "
             "name='conv1'") == "[3,3]");
  CHECK(text(db, "SELECT json_extract(attrs,'$.to') FROM graph_nodes WHERE name='to_half'") ==
        "10");
  CHECK(text(db, "SELECT value FROM graph_attrs WHERE key='opset' AND scope='model'") == "13");
  CHECK(text(db, "SELECT value FROM graph_attrs WHERE key='producer_name'") == "perfsage-fixtures");
}

TEST_CASE("small_cnn.onnx: edges from producers, graph inputs and initializers") {
  test::Ingested in;
  test::ingest_into(in, {fixture("small_cnn.onnx")});
  auto& db = in.db;
  // 16 node inputs plus one edge into the graph output.
  CHECK(count(db, "SELECT count(*) FROM graph_edges") == 17);
  CHECK(count(db, "SELECT count(*) FROM graph_edges WHERE control=1") == 0);
  CHECK(count(db,
              "SELECT count(*) FROM graph_edges WHERE src='conv1' AND src_index=0 AND "
              "dst='bn1' AND dst_index=0") == 1);
  CHECK(count(db,
              "SELECT count(*) FROM graph_edges WHERE src='bn.var' AND dst='bn1' AND "
              "dst_index=4 AND src_index IS NULL") == 1);
  CHECK(count(db, "SELECT count(*) FROM graph_edges WHERE src='input' AND dst='conv1'") == 1);
  CHECK(count(db, "SELECT count(*) FROM graph_edges WHERE src='Relu_2' AND dst='flatten'") == 1);
  CHECK(count(db, "SELECT count(*) FROM graph_edges WHERE src='to_half' AND dst='to_float'") == 1);
  CHECK(count(db, "SELECT count(*) FROM graph_edges WHERE src='to_float' AND dst='output'") == 1);
}

TEST_CASE("small_cnn.onnx: initializer bytes and tensor types, never the data") {
  test::Ingested in;
  test::ingest_into(in, {fixture("small_cnn.onnx")});
  auto& db = in.db;
  CHECK(count(db, "SELECT count(*) FROM tensors WHERE direction='initializer'") == 8);
  CHECK(count(db, "SELECT sum(bytes) FROM tensors WHERE direction='initializer'") == 10792);
  CHECK(text(db,
             "SELECT shape || ' ' || bytes FROM tensors WHERE direction='initializer' AND "
             "name='conv.weight'") == "[4,3,3,3] 432");
  CHECK(text(db, "SELECT shape || dtype FROM tensors WHERE direction='graph_input'") ==
        "[\"batch\",3,8,8]FLOAT");
  // value_info gives intermediate tensors their type at both ends.
  CHECK(text(db, "SELECT shape FROM tensors WHERE node='conv1' AND direction='output'") ==
        "[\"batch\",4,8,8]");
  CHECK(text(db, "SELECT shape FROM tensors WHERE node='bn1' AND direction='input' AND idx=0") ==
        "[\"batch\",4,8,8]");
  CHECK(text(db, "SELECT dtype FROM tensors WHERE direction='graph_output'") == "FLOAT");
  CHECK(count(db, "SELECT count(*) FROM tensors WHERE direction='graph_input'") == 1);
}

TEST_CASE("external-data models: sizes from the .onnx alone, the data file never read") {
  test::TempDir dir;
  // Only the .onnx is copied: weights.bin is absent, and must not be needed.
  std::filesystem::copy_file(fixture("external/external.onnx"), dir.path() / "external.onnx");
  test::Ingested in;
  test::ingest_into(in, {dir.path() / "external.onnx"});
  CHECK(text(in.db, "SELECT bytes FROM tensors WHERE direction='initializer' AND name='w'") ==
        "8192");
  CHECK(text(in.db, "SELECT value FROM graph_attrs WHERE key='external_data'") ==
        "[\"weights.bin\"]");
  CHECK(text(in.db, "SELECT value FROM graph_attrs WHERE key='opset'") == "17");
}

TEST_CASE("an ONNX model without the .onnx extension is recognised by its content") {
  test::TempDir dir;
  auto m = model_with({node("Relu", "r", {"x"}, {"y"})}, {"x"});
  save(m, dir.path() / "exported_model.bin");
  test::Ingested in;
  test::ingest_into(in, {dir.path() / "exported_model.bin"});
  CHECK(in.result.files[0].collector == "onnx-model");
  CHECK(count(in.db, "SELECT count(*) FROM graph_nodes") == 1);
}

TEST_CASE("unnamed ONNX nodes get unique synthesised names") {
  test::TempDir dir;
  // A node explicitly named like the name the first unnamed node would get.
  auto m = model_with({node("Relu", "", {"x"}, {"a"}), node("Relu", "", {"a"}, {"b"}),
                       node("Add", "Relu_0", {"a", "b"}, {"c"})},
                      {"x"});
  save(m, dir.path() / "m.onnx");
  test::Ingested in;
  test::ingest_into(in, {dir.path() / "m.onnx"});
  CHECK(count(in.db, "SELECT count(DISTINCT name) FROM graph_nodes") == 3);
  CHECK(text(in.db, "SELECT type FROM graph_nodes WHERE name='Relu_0'") == "Add");
  CHECK(text(in.db, "SELECT type FROM graph_nodes WHERE name='Relu_1'") == "Relu");
  CHECK(count(in.db, "SELECT count(*) FROM graph_edges WHERE src='Relu_0_' AND dst='Relu_1'") == 1);
}

TEST_CASE("subgraphs in If branches are recorded with outer-scope inputs") {
  test::TempDir dir;
  auto iff = node("If", "if1", {"cond"}, {"out"});
  auto* attr = iff.add_attribute();
  attr->set_name("then_branch");
  attr->set_type(ox::AttributeProto::GRAPH);
  auto* then_g = attr->mutable_g();
  then_g->set_name("then");
  *then_g->add_node() = node("Identity", "inner", {"x"}, {"t"});  // x from the outer scope
  then_g->add_output()->set_name("t");
  auto m = model_with({iff}, {"cond", "x"});
  save(m, dir.path() / "if.onnx");
  test::Ingested in;
  test::ingest_into(in, {dir.path() / "if.onnx"});
  CHECK(text(in.db, "SELECT graph FROM graph_nodes WHERE name='inner'") == "g/if1/then_branch");
  CHECK(text(in.db,
             "SELECT value FROM graph_attrs WHERE graph='g/if1/then_branch' AND "
             "key='parent_node'") == "if1");
  CHECK(count(in.db, "SELECT count(*) FROM graph_edges WHERE src='x' AND dst='inner'") == 1);
  CHECK(text(in.db,
             "SELECT json_extract(attrs,'$.then_branch') FROM graph_nodes WHERE "
             "name='if1'") == "<graph>");
}

TEST_CASE("a node input nobody produces: strict error naming it, lenient skip") {
  test::TempDir dir;
  auto m =
      model_with({node("Relu", "r", {"ghost"}, {"y"}), node("Relu", "s", {"x"}, {"z"})}, {"x"});
  save(m, dir.path() / "bad.onnx");
  test::Ingested strict;
  CHECK_THROWS_WITH(test::ingest_into(strict, {dir.path() / "bad.onnx"}),
                    Catch::Contains("graph g node r input 0 \"ghost\""));
  test::Ingested lenient;
  test::ingest_into(lenient, {dir.path() / "bad.onnx"}, collectors::Mode::lenient);
  CHECK(lenient.result.files[0].skipped == 1);
  CHECK(count(lenient.db, "SELECT count(*) FROM graph_edges") == 1);
}

TEST_CASE("a truncated ONNX model names the byte offset") {
  test::TempDir dir;
  std::ifstream f(fixture("small_cnn.onnx"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), {});
  dir.write("cut.onnx", bytes.substr(0, bytes.size() / 2));
  test::Ingested in;
  CHECK_THROWS_WITH(test::ingest_into(in, {dir.path() / "cut.onnx"}),
                    Catch::Matches(".*cut.onnx:byte [0-9]+: not a valid ONNX model.*"));
}

TEST_CASE("initializer byte sizes from every storage form") {
  ox::TensorProto t;
  t.set_data_type(ox::TensorProto::FLOAT16);
  t.add_dims(3);
  t.add_dims(5);
  CHECK(onnx_model::tensor_bytes(t) == 30);
  t.set_raw_data(std::string(7, 'x'));
  CHECK(onnx_model::tensor_bytes(t) == 7);
  ox::TensorProto s;
  s.set_data_type(ox::TensorProto::STRING);
  s.add_dims(2);
  s.add_string_data("abc");
  s.add_string_data("de");
  CHECK(onnx_model::tensor_bytes(s) == 5);
  ox::TensorProto huge;
  huge.set_data_type(ox::TensorProto::DOUBLE);
  for (int i = 0; i < 4; ++i) huge.add_dims(int64_t{1} << 20);
  CHECK(onnx_model::tensor_bytes(huge) == 0);  // overflow: unknown, not garbage
}
