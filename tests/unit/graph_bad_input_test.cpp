// Damaged inputs for the graph collectors: truncated dumps, garbage, empty files.
#include <fstream>
#include <random>

#include "collectors/graph/ge_text_blocks.h"
#include "collectors/graph/onnx_collector.h"
#include "graph_test_util.h"

using namespace perfsage;
using perfsage::test::count;

namespace {
std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
std::string random_bytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}
}  // namespace

TEST_CASE("a truncated GE dump is an error with line:column in strict mode") {
  std::string dump = "graph {\n  name: \"g\"\n  op {\n    name: \"a\"\n    type: \"Add\"\n";
  test::TempDir dir;
  auto p = dir.write("ge_proto_00000001_Build.txt", dump);
  test::Ingested in;
  // The parser reaches the end of the text on line 6, still inside two blocks.
  CHECK_THROWS_WITH(test::ingest_into(in, {p}),
                    Catch::Contains("ge_proto_00000001_Build.txt:6:1: ") &&
                        Catch::Contains("expected protobuf text of a GE ge.proto.ModelDef"));
}

TEST_CASE("a malformed GE dump reports the offending line and column") {
  std::string dump =
      "graph {\n  name: \"g\"\n  op {\n    name: \"a\"\n    id: notanumber\n  }\n}\n";
  test::TempDir dir;
  auto p = dir.write("ge_proto_00000002_Build.txt", dump);
  test::Ingested in;
  CHECK_THROWS_WITH(test::ingest_into(in, {p}),
                    Catch::Contains("ge_proto_00000002_Build.txt:5:9: "));
}

TEST_CASE("the real dump cut in its fourth graph: strict fails, lenient keeps whole graphs") {
  PERFSAGE_REQUIRE_SAMPLES();
  std::string full = slurp(test::samples_dir() / "ascend/oam-tools/ge_proto_00000001_Build.txt");
  size_t cut = full.find("name: \"ge_default_20230713074125_sub_2_unknow\"");
  REQUIRE(cut != std::string::npos);
  cut = full.find("type: \"Unique\"", cut);
  REQUIRE(cut != std::string::npos);
  test::TempDir dir;
  auto p = dir.write("ge_proto_00000001_Build.txt", full.substr(0, cut));
  test::Ingested strict;
  CHECK_THROWS_WITH(test::ingest_into(strict, {p}),
                    Catch::Matches(".*ge_proto_00000001_Build.txt:[0-9]+:[0-9]+: .*"));
  test::Ingested lenient;
  test::ingest_into(lenient, {p}, collectors::Mode::lenient);
  CHECK(lenient.result.files[0].skipped == 1);
  CHECK_THAT(test::all_warnings(lenient.result), Catch::Contains("truncated top-level block"));
  // Graphs 0..2 parse; the cut graph is dropped whole.
  CHECK(count(lenient.db, "SELECT count(DISTINCT graph) FROM graph_nodes") == 3);
  CHECK(count(lenient.db, "SELECT count(*) FROM graph_nodes WHERE type='Unique'") == 0);
}

TEST_CASE("lenient recovery skips a broken block and keeps the ones after it") {
  std::string dump =
      "graph { name: \"a\" op { name: \"x\" type: \"Data\" } }\n"
      "graph {\n  name: \"b\"\n  op { name: \"y\" id: oops }\n}\n"
      "graph { name: \"c\" op { name: \"z\" type: \"Data\" } }\n"
      "attr { key: \"target_type\" value { s: \"MINI\" } }\n";
  test::TempDir dir;
  auto p = dir.write("ge_proto_00000004_Build.txt", dump);
  test::Ingested in;
  test::ingest_into(in, {p}, collectors::Mode::lenient);
  CHECK(in.result.files[0].skipped == 1);
  CHECK_THAT(test::all_warnings(in.result), Catch::Contains("first at 4:"));
  CHECK(count(in.db, "SELECT count(*) FROM graph_nodes") == 2);
  CHECK(count(in.db, "SELECT count(*) FROM graph_attrs WHERE key='target_type'") == 1);
}

TEST_CASE("top-level block splitting ignores braces in strings and comments") {
  std::string t =
      "# header { comment\ngraph {\n  name: \"a}{\"\n  op { name: 'q\\'}' }\n}\n"
      "name: \"m\"\nattr { key: \"k\" value { s: \"v\" } }  # trailing }\ngraph {\n";
  auto blocks = collectors::graph::split_top_level(t);
  REQUIRE(blocks.size() == 4);
  CHECK(blocks[0].line == 1);
  CHECK(t.substr(blocks[0].begin, blocks[0].end - blocks[0].begin).rfind("graph {", 0) == 0);
  CHECK(blocks[1].line == 5);
  CHECK(blocks[2].line == 6);
  CHECK(blocks[3].line == 7);
  CHECK_FALSE(blocks[3].closed);
  CHECK(blocks[2].closed);
}

TEST_CASE("empty files are clear errors, not silent successes") {
  test::TempDir dir;
  auto ge = dir.write("ge_proto_00000005_Build.txt", "");
  auto blank = dir.write("ge_proto_00000006_Build.txt", "\n  \n");
  auto onnx = dir.write("model.onnx", "");
  for (auto mode : {collectors::Mode::strict, collectors::Mode::lenient}) {
    test::Ingested a, b, c;
    CHECK_THROWS_WITH(test::ingest_into(a, {ge}, mode), Catch::Contains("ge_proto_00000005"));
    CHECK_THROWS_WITH(test::ingest_into(b, {blank}, mode), Catch::Contains("ge_proto_00000006"));
    CHECK_THROWS_WITH(test::ingest_into(c, {onnx}, mode),
                      Catch::Contains("model.onnx:byte 0: empty file"));
  }
}

TEST_CASE("binary garbage named .onnx or like a GE dump is rejected clearly") {
  test::TempDir dir;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    auto junk = random_bytes(4096 + seed * 97, seed);
    auto onnx = dir.write("junk" + std::to_string(seed) + ".onnx", junk);
    test::Ingested in;
    CHECK_THROWS_WITH(test::ingest_into(in, {onnx}),
                      Catch::Contains("not a valid ONNX model") ||
                          Catch::Contains("no graph in this protobuf message"));
    auto ge = dir.write("ge_proto_0000000" + std::to_string(seed % 10) + "_Build.txt", junk);
    test::Ingested in2;
    CHECK_THROWS_WITH(test::ingest_into(in2, {ge}),
                      Catch::Matches(".*ge_proto_[0-9]+_Build.txt:([0-9]+:[0-9]+|1:1 ).*"));
    test::Ingested in3;
    CHECK_THROWS(test::ingest_into(in3, {ge}, collectors::Mode::lenient));
  }
}

TEST_CASE("ONNX head detection rejects text and random bytes") {
  using collectors::graph::looks_like_onnx_head;
  CHECK_FALSE(looks_like_onnx_head(""));
  CHECK_FALSE(looks_like_onnx_head("graph {\n  name: \"g\"\n}"));
  CHECK_FALSE(looks_like_onnx_head("{\"traceEvents\": []}"));
  int accepted = 0;
  for (unsigned seed = 100; seed < 300; ++seed) {
    accepted += looks_like_onnx_head(random_bytes(1024, seed));
  }
  CHECK(accepted <= 2);
  // ir_version 8, then producer_name "p".
  CHECK(looks_like_onnx_head(std::string("\x08\x08\x12\x01p", 5)));
}

namespace {
// A GE dump whose first op holds `depth` nested blocks opened by `open` and closed by `close`.
std::string nested_dump(int depth, const std::string& open, const std::string& close) {
  std::string dump = "graph {\n  name: \"g\"\n  op {\n    name: \"a\"\n";
  for (int i = 0; i < depth; ++i) dump += open;
  dump += "\n";
  for (int i = 0; i < depth; ++i) dump += close;
  return dump + "\n  }\n}\n";
}
}  // namespace

TEST_CASE("GE dumps nested 100,000 levels deep are refused before the parser recurses") {
  test::TempDir dir;
  // Unknown fields (protobuf skips them recursively) and known ones (attr → func → attr).
  for (const auto& [open, close] : {std::pair<std::string, std::string>{"zz { ", "} "},
                                    {"attr { key: \"k\" value { func { ", "} } } "}}) {
    INFO(open);
    auto p = dir.write(std::to_string(open.size()) + "/ge_proto_00000001_Build.txt",
                       nested_dump(100000, open, close));
    for (auto mode : {collectors::Mode::strict, collectors::Mode::lenient}) {
      test::Ingested in;
      CHECK_THROWS_WITH(test::ingest_into(in, {p}, mode),
                        Catch::Contains("nested deeper than 500 levels"));
    }
  }
  // 20 levels of unknown fields are fine.
  auto ok = dir.write("ok/ge_proto_00000001_Build.txt", nested_dump(20, "zz { ", "} "));
  test::Ingested in;
  test::ingest_into(in, {ok});
  CHECK(in.result.files.at(0).records > 0);
}

TEST_CASE("a GE parse error quotes at most 200 bytes of the offending token") {
  std::string token(4 << 20, 'x');
  std::string dump =
      "graph {\n  name: \"g\"\n  op {\n    name: \"a\"\n    id: " + token + "\n  }\n}\n";
  test::TempDir dir;
  auto p = dir.write("ge_proto_00000001_Build.txt", dump);
  test::Ingested in;
  try {
    test::ingest_into(in, {p});
    FAIL("no error");
  } catch (const collectors::ParseError& e) {
    std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("ge_proto_00000001_Build.txt:5:9: "));
    CHECK_THAT(what, Catch::Contains(" bytes)"));
    CHECK(what.size() < 600);
  }
}
