// Pattern files, matching on task sequences (including the minimal_names sample) and the
// derived tables the knowledge-base facts read.
#include <catch2/catch.hpp>

#include "analyzer_resources.h"
#include "analyzers/graph/match_ops.h"
#include "analyzers/patterns/analyze_patterns.h"
#include "analyzers/patterns/matcher.h"
#include "analyzers/patterns/op_graph.h"
#include "graph_test_util.h"
#include "store/run_writer.h"

using namespace perfsage;
using analyzers::patterns::parse_patterns;
using analyzers::patterns::PatternError;

namespace {

std::vector<analyzers::patterns::Pattern> builtin_patterns() {
  return analyzers::patterns::load_patterns(std::filesystem::path(PERFSAGE_SOURCE_DIR) /
                                            "knowledge_bases" / "patterns");
}

store::OpTask task(const std::string& name, const std::string& type, int64_t start_us,
                   double dur_us, int64_t stream = 1) {
  store::OpTask t;
  t.name = name;
  t.type = type;
  t.core_type = "AI_CORE";
  t.stream_id = stream;
  t.start_ns = start_us * 1000;
  t.dur_ns = static_cast<int64_t>(dur_us * 1000);
  return t;
}

}  // namespace

TEST_CASE("pattern files: chains with optional elements, DAGs, and errors with file:line") {
  auto ps = parse_patterns(R"(patterns:
  - name: a
    kind: aipp
    first_layer: true
    chain: ["Cast?", "TransData", "Conv2D|Conv"]
  - name: swish
    pass: P
    nodes: {dw: DepthwiseConv2D, sig: Sigmoid, mul: Mul}
    edges: [[dw, sig], [sig, mul], [dw, mul]]
)",
                           "p.yaml");
  REQUIRE(ps.size() == 2);
  CHECK(ps[0].chain);
  CHECK(ps[0].first_layer);
  CHECK(ps[0].nodes[0].optional);
  CHECK(ps[0].nodes[2].types == std::set<std::string>{"Conv2D", "Conv"});
  CHECK(ps[1].kind == "ub_fusion");
  CHECK(ps[1].edges.size() == 3);
  CHECK(analyzers::patterns::expand_optional(ps[0]).size() == 2);

  auto error_of = [](const std::string& text) {
    try {
      parse_patterns(text, "bad.yaml");
    } catch (const PatternError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("patterns:\n  - name: x\n    chain: [A]\n") ==
        "bad.yaml:2: pattern 'x' needs at least two nodes");
  CHECK_THAT(error_of("patterns:\n  - name: x\n    colour: red\n    chain: [A, B]\n"),
             Catch::Contains("bad.yaml:3") && Catch::Contains("unknown pattern key 'colour'"));
  CHECK_THAT(error_of("patterns:\n  - name: x\n    nodes: {a: A}\n    edges: [[a, b]]\n"),
             Catch::Contains("bad.yaml:4") && Catch::Contains("unknown node"));
  CHECK_THAT(error_of("patterns: [\n"), Catch::StartsWith("bad.yaml:"));
  CHECK_THAT(error_of("just text"), Catch::Contains("'patterns' list"));
  // The shipped pattern library parses.
  CHECK(builtin_patterns().size() >= 5);
}

TEST_CASE("minimal_names sample: first-layer Cast/TransData/Cast before Conv2D17") {
  PERFSAGE_REQUIRE_SAMPLES();
  test::Ingested in;
  test::ingest_into(in, {test::samples_dir() / "ascend/mstt/kernel_details_minimal_names.csv"});
  store::ensure_derived_tables(in.db, analyzers::derived_tables());  // as an analysis does
  analyzers::match_graph_to_ops(in.db, in.run_id);
  auto s = analyzers::analyze_patterns(in.db, in.run_id, builtin_patterns());
  CHECK(s.source == "sequence");
  auto st = in.db.prepare(
      "SELECT pattern, kind, nodes, types, fused, count, total_us, share "
      "FROM fusion_candidates WHERE run_id=?1");
  st.bind(1, in.run_id);
  REQUIRE(st.step());
  CHECK(st.text(0) == "first_layer_cast_transdata_conv");
  CHECK(st.text(1) == "aipp");
  CHECK(st.text(2) == "trans_Cast_19;trans_TransData_20;trans_Cast_21;Conv2D17");
  CHECK(st.text(3) == "Cast;TransData;Cast;Conv2D");
  CHECK(st.int64(4) == 0);
  CHECK(st.int64(5) == 1);
  CHECK(st.real(6) == Approx(5.86 + 7.77 + 4.35 + 24.26));
  CHECK(st.real(7) == Approx(42.24 / 1000.8548).epsilon(1e-4));
  CHECK_FALSE(st.step());  // Cast16 -> trans_Cast_19 is no pattern; nothing else matches
  // Both TransData have no formats in this file: reported as unknown, never as round trips.
  CHECK(test::count(in.db, "SELECT count(*) FROM transdata_chains WHERE kind='unknown'") == 2);
  CHECK(test::count(in.db, "SELECT count(*) FROM transdata_chains WHERE kind<>'unknown'") == 0);
  CHECK(test::text(in.db, "SELECT round(sum(total_us), 2) FROM transdata_chains") == "31.75");
}

TEST_CASE("sequence chains follow one stream in start order and skip runtime tasks") {
  test::AnalysisStore db;
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    // Stream 1: MatMul, memset (ignored), Add, Gelu -> a MatMul+Add+Gelu candidate, twice.
    for (int step = 0; step < 2; ++step) {
      int64_t t0 = step * 1000;
      w.add(task("MatMul_1", "MatMulV2", t0 + 0, 50));
      w.add(task("atomic_memset_1", "atomic_memset", t0 + 60, 1));
      w.add(task("Add_2", "Add", t0 + 70, 10));
      w.add(task("Gelu_3", "Gelu", t0 + 90, 20));
    }
    // Stream 2 interleaves in time but must not join stream 1's chains.
    w.add(task("MatMul_9", "MatMulV2", 65, 5, 2));
    w.add(task("Relu_9", "Relu", 80, 5, 3));
    w.commit();
  }
  analyzers::match_graph_to_ops(db, run);
  analyzers::analyze_patterns(db, run, builtin_patterns());
  auto st =
      db.prepare("SELECT pattern, nodes, count, total_us FROM fusion_candidates WHERE run_id=?1");
  st.bind(1, run);
  REQUIRE(st.step());
  CHECK(st.text(0) == "matmul_add_gelu");
  CHECK(st.text(1) == "MatMul_1;Add_2;Gelu_3");
  CHECK(st.int64(2) == 2);
  CHECK(st.real(3) == Approx(160));
  CHECK_FALSE(st.step());
  // Re-running replaces the rows.
  analyzers::match_graph_to_ops(db, run);
  analyzers::analyze_patterns(db, run, builtin_patterns());
  CHECK(test::count(db, "SELECT count(*) FROM fusion_candidates") == 1);
}

TEST_CASE("sequence TransData with formats: round trips and ND<->NZ singles") {
  test::AnalysisStore db;
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    auto td = [&](const std::string& name, int64_t start, const char* in, const char* out) {
      auto t = task(name, "TransData", start, 10);
      t.input_formats = in;
      t.output_formats = out;
      w.add(t);
    };
    td("TransData_1", 0, "NCHW", "NC1HWC0");
    w.add(task("Cast_2", "Cast", 20, 5));
    td("TransData_3", 30, "NC1HWC0", "NCHW");
    w.add(task("Reshape_4", "Reshape", 50, 5));
    w.add(task("Mul_5", "Mul", 60, 100));
    td("TransData_6", 200, "ND", "FRACTAL_NZ");
    w.commit();
  }
  analyzers::match_graph_to_ops(db, run);
  analyzers::analyze_patterns(db, run, builtin_patterns());
  CHECK(test::text(
            db, "SELECT nodes || ' ' || formats FROM transdata_chains WHERE kind='round_trip'") ==
        "TransData_1;Cast_2;TransData_3 NCHW>NC1HWC0>NCHW");
  CHECK(test::text(db, "SELECT total_us FROM transdata_chains WHERE kind='round_trip'") == "20.0");
  CHECK(test::text(db, "SELECT transdata FROM transdata_chains WHERE kind='nd_nz'") ==
        "TransData_6");
  CHECK(test::count(db, "SELECT count(*) FROM transdata_chains") == 2);
}

TEST_CASE("a run without ops or graphs gets no candidates and no error") {
  test::AnalysisStore db;
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    w.commit();
  }
  analyzers::match_graph_to_ops(db, run);
  auto s = analyzers::analyze_patterns(db, run, builtin_patterns());
  CHECK(s.source.empty());
  CHECK(s.candidates == 0);
  CHECK(s.chains == 0);
}
