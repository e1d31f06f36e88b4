// onnx_rewrite passes on small hand-built graphs: what a finding's node names restrict, why a
// match is refused, inexact rewrites only proposed, and node names that agree with the ONNX
// collector's (findings name nodes the way the collector stored them).
// Numerical equivalence on real models: tests/actions/check_onnx_rewrite.py.
#include <catch2/catch.hpp>
#include <tuple>

#include "actions/onnx_rewrite.h"
#include "test_support.h"

using namespace perfsage;
using namespace perfsage::actions;
namespace ox = perfsage::onnx;

namespace {

void value(ox::ValueInfoProto* v, const std::string& name, std::vector<int64_t> dims,
           int type = ox::TensorProto::FLOAT) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(type);
  for (auto d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

ox::NodeProto* node(ox::GraphProto& g, const std::string& type, std::vector<std::string> in,
                    std::vector<std::string> out, const std::string& name = "") {
  auto* n = g.add_node();
  n->set_op_type(type);
  n->set_name(name);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
  return n;
}

ox::ModelProto model(int opset = 13) {
  ox::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  m.mutable_graph()->set_name("g");
  return m;
}

std::vector<std::string> texts(const std::vector<OnnxRewriteNote>& notes) {
  std::vector<std::string> out;
  for (const auto& n : notes) out.push_back(n.text);
  return out;
}

}  // namespace

TEST_CASE("onnx_rewrite: a finding's node names restrict the pass") {
  auto m = model();
  auto& g = *m.mutable_graph();
  value(g.add_input(), "x", {2, 3});
  value(g.add_output(), "y", {2, 3});
  node(g, "Identity", {"x"}, {"a"}, "keep_me");
  node(g, "Identity", {"a"}, {"b"}, "drop_me");
  node(g, "Relu", {"b"}, {"y"});
  auto report = rewrite_onnx(m, {{"remove_identity", {"drop_me", "ghost"}, "", "", "f1"}}, false);
  REQUIRE(report.applied.size() == 1);
  CHECK(report.applied[0].nodes == std::vector<std::string>{"drop_me"});
  CHECK(report.applied[0].finding == "f1");
  REQUIRE(report.skipped.size() == 1);
  CHECK(report.skipped[0].nodes == std::vector<std::string>{"ghost"});
  CHECK(report.skipped[0].text == "no node of this name in the model");
  REQUIRE(g.node_size() == 2);
  CHECK(g.node(0).name() == "keep_me");
  CHECK(g.node(1).input(0) == "a");  // Relu reads what drop_me passed through
  // The whole graph: keep_me goes too, and nothing is left to do after that.
  CHECK(rewrite_onnx(m, {{"remove_identity", {}, "", "", "f2"}}, false).applied.size() == 1);
  auto bytes = serialize_onnx_model(m);
  CHECK(rewrite_onnx(m, {{"remove_identity", {}, "", "", "f2"}}, false).applied.empty());
  CHECK(serialize_onnx_model(m) == bytes);
}

TEST_CASE("onnx_rewrite: matches that are not exact are refused with the reason") {
  auto m = model();
  auto& g = *m.mutable_graph();
  value(g.add_input(), "x", {1, 2, 4, 4});
  value(g.add_input(), "train", {}, ox::TensorProto::BOOL);
  value(g.add_input(), "x3", {2, 4, 8});
  value(g.add_output(), "id_out", {1, 2, 4, 4});
  value(g.add_output(), "drop_out", {1, 2, 4, 4});
  value(g.add_output(), "bn_out", {1, 2, 4, 4});
  value(g.add_output(), "conv_out", {1, 2, 4, 4});
  value(g.add_output(), "mm_out", {2, 4, 3});
  // An Identity between a graph input and a graph output: removing it renames one of them.
  node(g, "Identity", {"x"}, {"id_out"}, "io_identity");
  // Dropout whose training_mode is a graph input: its mask may be random.
  node(g, "Dropout", {"x", "", "train"}, {"drop_out"}, "maybe_training");
  // Conv whose output is also a graph output: folding would change that output.
  auto* w = g.add_initializer();
  w->set_name("w");
  w->set_data_type(ox::TensorProto::FLOAT);
  for (int64_t d : {2, 2, 1, 1}) w->add_dims(d);
  for (int i = 0; i < 4; ++i) w->add_float_data(1.0f + i);
  for (const char* p : {"s", "b", "mean", "var"}) {
    auto* t = g.add_initializer();
    t->set_name(p);
    t->set_data_type(ox::TensorProto::FLOAT);
    t->add_dims(2);
    t->add_float_data(1.0f);
    t->add_float_data(0.5f);
  }
  node(g, "Conv", {"x", "w"}, {"conv_out"}, "conv");
  node(g, "BatchNormalization", {"conv_out", "s", "b", "mean", "var"}, {"bn_out"}, "bn");
  // MatMul on a 3-D input: Gemm is 2-D only.
  auto* w2 = g.add_initializer();
  w2->set_name("w2");
  w2->set_data_type(ox::TensorProto::FLOAT);
  w2->add_dims(8);
  w2->add_dims(3);
  for (int i = 0; i < 24; ++i) w2->add_float_data(0.1f * i);
  node(g, "MatMul", {"x3", "w2"}, {"mm"}, "mm3d");
  node(g, "Add", {"mm", "b3"}, {"mm_out"}, "add3d");
  auto* b3 = g.add_initializer();
  b3->set_name("b3");
  b3->set_data_type(ox::TensorProto::FLOAT);
  b3->add_dims(3);
  for (int i = 0; i < 3; ++i) b3->add_float_data(1.0f);

  auto before = serialize_onnx_model(m);
  auto report = rewrite_onnx(m,
                             {{"remove_identity", {}, "", "", "a"},
                              {"remove_dropout", {}, "", "", "b"},
                              {"fold_batchnorm", {}, "", "", "c"},
                              {"fuse_matmul_add", {}, "", "", "d"}},
                             false);
  CHECK(report.applied.empty());
  CHECK(serialize_onnx_model(m) == before);
  auto why = texts(report.skipped);
  REQUIRE(why.size() == 4);
  CHECK_THAT(why[0], Catch::Contains("both graph-level values"));
  CHECK_THAT(why[1], Catch::Contains("training_mode is not a constant"));
  CHECK_THAT(why[2], Catch::Contains("conv_out has other readers"));
  CHECK_THAT(why[3], Catch::Contains("not known to be 2-D"));
  CHECK(report.skipped[2].nodes == std::vector<std::string>{"conv", "bn"});
  CHECK(report.skipped[2].finding == "c");
}

TEST_CASE("onnx_rewrite: inexact rewrites are proposed with what changes, applied when allowed") {
  auto m = model();
  auto& g = *m.mutable_graph();
  value(g.add_input(), "x", {4});
  value(g.add_output(), "y", {4});
  node(g, "Relu", {"x"}, {"r"}, "relu");
  for (auto [name, in, out, to] : {std::tuple{"to_half", "r", "h", ox::TensorProto::FLOAT16},
                                   std::tuple{"to_float", "h", "f", ox::TensorProto::FLOAT}}) {
    auto* a = node(g, "Cast", {in}, {out}, name)->add_attribute();
    a->set_name("to");
    a->set_type(ox::AttributeProto::INT);
    a->set_i(to);
  }
  node(g, "Sigmoid", {"f"}, {"y"}, "sigmoid");
  auto before = serialize_onnx_model(m);
  auto proposed = rewrite_onnx(m, {{"remove_cast_round_trip", {}, "", "", "f"}}, false);
  CHECK(proposed.applied.empty());
  REQUIRE(proposed.proposed.size() == 1);
  CHECK_FALSE(proposed.proposed[0].exact);
  CHECK_THAT(proposed.proposed[0].text, Catch::Contains("float16") && Catch::Contains("65504") &&
                                            Catch::Contains("relative 0.00049"));
  CHECK(serialize_onnx_model(m) == before);

  auto applied = rewrite_onnx(m, {{"remove_cast_round_trip", {}, "", "", "f"}}, true);
  REQUIRE(applied.applied.size() == 1);
  CHECK_FALSE(applied.applied[0].exact);
  REQUIRE(g.node_size() == 2);
  CHECK(g.node(1).op_type() == "Sigmoid");
  CHECK(g.node(1).input(0) == "r");
}

TEST_CASE("onnx_rewrite: an unnamed node is named as the ONNX collector stored it") {
  // small_cnn's Relu has no name: the collector stores it as Relu_2, findings name it so.
  auto m = read_onnx_model(test::source_dir() / "tests/fixtures/graph/small_cnn.onnx");
  REQUIRE(m.graph().node(2).name().empty());
  auto report = rewrite_onnx(m, {{"fold_batchnorm", {"Relu_2"}, "", "", "f"}}, false);
  REQUIRE(report.skipped.size() == 1);
  CHECK(report.skipped[0].text == "no fold_batchnorm match at this node");
  report = rewrite_onnx(m, {{"fold_batchnorm", {"bn1"}, "", "", "f"}}, false);
  REQUIRE(report.applied.size() == 1);
  CHECK(report.applied[0].nodes == std::vector<std::string>{"conv1", "bn1"});
}

TEST_CASE("onnx_rewrite: unknown passes and unreadable models are errors") {
  auto m = model();
  CHECK_THROWS_WITH(rewrite_onnx(m, {{"fold_everything", {}, "", "", ""}}, false),
                    Catch::Contains("unknown onnx_rewrite pass 'fold_everything'") &&
                        Catch::Contains("fold_batchnorm"));
  test::TempDir dir;
  auto bad = dir.write("bad.onnx", std::string("\x08\x07\x12\xff\xff", 5));
  CHECK_THROWS_WITH(read_onnx_model(bad), Catch::Contains("bad.onnx: byte"));
  CHECK_THROWS_WITH(read_onnx_model(dir.path() / "none.onnx"), Catch::Contains("cannot open"));
}
