// Evaluator over a store, pack statuses, ranking, and the built-in packs' own tests.
#include <catch2/catch.hpp>

#include "engine/evaluator.h"
#include "engine/fact_prefetch.h"
#include "engine/kb/pack_tests.h"
#include "engine/kb/reader.h"
#include "store/run_writer.h"
#include "test_support.h"

using namespace perfsage;
using namespace perfsage::engine;

namespace {

int64_t ascend_run(store::Database& db) {
  store::RunWriter w(db, {"job", {"/x"}, "fp", "2026-01-01T00:00:00Z"});
  auto task = [&](const char* name, const char* type, const char* core, int64_t start_us,
                  int64_t dur_us, const char* out_dtype) {
    store::OpTask t;
    t.name = name;
    t.type = type;
    t.core_type = core;
    t.start_ns = start_us * 1000;
    t.dur_ns = dur_us * 1000;
    t.input_dtypes = "INT32";
    t.output_dtypes = out_dtype;
    w.add(t);
  };
  for (int i = 0; i < 5; ++i) task("trans_Cast_5", "Cast", "AI_CPU", i * 1000, 150, "UINT64");
  for (int i = 0; i < 2; ++i)
    task("trans_Cast_18", "Cast", "AI_CPU", 6000 + i * 1000, 80, "UINT64");
  task("Unique_1", "Unique", "AI_CPU", 9000, 3000, "INT32");
  task("MatMul_1", "MatMul", "AI_CORE", 13000, 5000, "FLOAT16");
  task("hcom_broadcast_", "hcom_broadcast_", "HCCL", 20000, 300000, "FLOAT16");
  w.commit();
  return w.run_id();
}

std::vector<std::filesystem::path> builtin_pack_dirs() {
  return {std::filesystem::path(PERFSAGE_KB_DIR) / "builtin" / "aicpu",
          std::filesystem::path(PERFSAGE_KB_DIR) / "builtin" / "gpu_runtime"};
}

}  // namespace

TEST_CASE("evaluate runs the built-in packs over an Ascend run and ranks the findings") {
  store::Database db(":memory:");
  int64_t run = ascend_run(db);
  Selection sel;
  auto loaded = load_pack_set(sel);
  auto ev = evaluate(db, run, loaded.set);
  std::map<std::string, std::string> status;
  for (const auto& p : ev.packs) status[p.pack] = p.status;
  CHECK(status["aicpu"] == "ok");
  CHECK(status["gpu_runtime"] == "skipped");  // applies to cuda only
  REQUIRE(ev.recommendations.size() == 4);
  // The 300 ms broadcast is 97 % of device time and no step breakdown exists: medium, first.
  CHECK(ev.recommendations[0].rule == "communication_dominates");
  CHECK(ev.recommendations[0].severity == "medium");
  ev.recommendations.erase(ev.recommendations.begin());
  // Unique: 3 ms of 309 ms device time -> low, but the largest gain comes first within low.
  const auto& top = ev.recommendations[0];
  CHECK(top.rule == "aicpu_op");
  CHECK(top.subjects == std::vector<std::string>{"Unique_1"});
  CHECK(top.gain_us.value() == Approx(2700));
  CHECK(ev.recommendations[1].rule == "aicpu_dtype");
  CHECK(ev.recommendations[1].subjects == std::vector<std::string>{"trans_Cast_5"});
  CHECK(ev.recommendations[1].message.find("UINT64") != std::string::npos);
  CHECK(ev.recommendations[1].message.find("750.0 µs") != std::string::npos);
  CHECK(ev.recommendations[1].evidence_json.find("\"count\":5") != std::string::npos);
  CHECK(ev.recommendations[1].evidence_json.find("\"dtype\":\"UINT64\"") != std::string::npos);
  CHECK(ev.recommendations[1].action_json.find("\"kind\":\"code_hint\"") == 1);
  CHECK(ev.recommendations[1].severity == "low");
  CHECK(ev.recommendations[1].pack_version == "1.0.0");
  // Results round-trip through the store.
  store::save_results(db, run, ev.packs, ev.recommendations);
  CHECK(store::load_recommendations(db, run).size() == 3);
}

TEST_CASE("a pack that errors or exceeds its budget does not stop the others") {
  perfsage::test::TempDir dir;
  dir.write("slow/pack.yaml",
            "name: slow\nversion: 0.1.0\nuses: [op]\nrules:\n"
            "  - id: cross\n    when: (op (name ?a)) (op (name ?b)) (op (name ?c))\n"
            "    message: \"{?a} {?b} {?c}\"\n");
  dir.write(
      "broken/pack.yaml",
      "name: broken\nversion: 0.1.0\nuses: [op]\nrules:\n"
      "  - id: r\n    when: (op (name ?a) (total_us ?t))\n    message: m\n    gain: (/ ?t 0)\n");
  dir.write("fine/pack.yaml",
            "name: fine\nversion: 0.1.0\nuses: [op]\nrules:\n"
            "  - id: r\n    when: (op (name ?a) (core_type AI_CPU))\n    message: \"{?a}\"\n    "
            "subjects: [a]\n");
  store::Database db(":memory:");
  int64_t run = ascend_run(db);
  Selection sel;
  sel.builtin = false;
  sel.paths = {dir.path()};
  auto loaded = load_pack_set(sel);
  Budget budget;
  budget.max_firings = 20;  // the cross product fires 64 times
  auto ev = evaluate(db, run, loaded.set, budget);
  std::map<std::string, store::PackResult> by;
  for (const auto& p : ev.packs) by[p.pack] = p;
  CHECK(by["slow"].status == "budget_exceeded");
  CHECK(by["slow"].error.find("firing") != std::string::npos);
  CHECK(by["broken"].status == "error");
  CHECK(by["broken"].error.find("divide by zero") != std::string::npos);
  CHECK(by["fine"].status == "ok");
  CHECK(by["fine"].fired == 3);
  REQUIRE(ev.recommendations.size() == 3);
  for (const auto& r : ev.recommendations) CHECK(r.pack == "fine");
}

TEST_CASE("ranking: severity first, then gain; duplicates removed") {
  std::vector<store::Recommendation> recs(4);
  recs[0].pack = "p", recs[0].rule = "a", recs[0].severity = "low", recs[0].gain_us = 900;
  recs[1].pack = "p", recs[1].rule = "b", recs[1].severity = "high", recs[1].gain_us = 10;
  recs[2].pack = "p", recs[2].rule = "c", recs[2].severity = "high", recs[2].gain_us = 50;
  recs[3] = recs[2];
  rank(recs);
  REQUIRE(recs.size() == 3);
  CHECK(recs[0].rule == "c");
  CHECK(recs[1].rule == "b");
  CHECK(recs[2].rule == "a");
  CHECK(severity_from_share(0.05) == "high");
  CHECK(severity_from_share(0.031) == "medium");
  CHECK(severity_from_share(0.0) == "low");
}

TEST_CASE("built-in packs pass their own tests with firing and non-firing coverage") {
  for (const auto& dir : builtin_pack_dirs()) {
    std::vector<LoadMessage> msgs;
    auto pack = read_pack(dir, msgs);
    REQUIRE(pack);
    auto report = run_pack_tests(*pack);
    INFO(report.str());
    CHECK(report.ok());
    CHECK(report.cases.size() >= 4);
    for (const auto& c : report.coverage) {
      INFO(c.rule);
      CHECK(c.firing_cases > 0);
      CHECK(c.quiet_cases > 0);
    }
  }
}

TEST_CASE("pack tests fail on wrong expectations, unexpected firings and missing coverage") {
  perfsage::test::TempDir dir;
  dir.write(
      "p/pack.yaml",
      "name: p\nversion: 0.1.0\nuses: [op]\nparams: {min: 10}\nrules:\n"
      "  - id: r\n    when: (op (name ?a) (max_us ?m&:(>= ?m ${min})))\n    message: \"{?a}\"\n"
      "    subjects: [a]\n    evidence: {max: \"?m\"}\n");
  dir.write("p/tests/t.yaml",
            "cases:\n"
            "  - name: wrong subject\n    facts: {op: [{name: A, max_us: 20}]}\n"
            "    expect: [{rule: r, subjects: [B]}]\n"
            "  - name: should be silent\n    facts: {op: [{name: A, max_us: 20}]}\n    expect: []\n"
            "  - name: evidence mismatch\n    facts: {op: [{name: A, max_us: 20}]}\n"
            "    expect: [{rule: r, evidence: {max: 21}}]\n"
            "  - name: param override silences it\n    params: {min: 50}\n"
            "    facts: {op: [{name: A, max_us: 20}]}\n    expect: []\n"
            "  - name: bad slot\n    facts: {op: [{nom: A}]}\n    expect: []\n");
  std::vector<LoadMessage> msgs;
  auto pack = read_pack(dir.path() / "p", msgs);
  REQUIRE(pack);
  auto report = run_pack_tests(*pack);
  REQUIRE(report.cases.size() == 5);
  CHECK_FALSE(report.cases[0].passed);
  CHECK_FALSE(report.cases[1].passed);
  CHECK(report.cases[1].failures[0].find("unexpected recommendation r [A]") != std::string::npos);
  CHECK_FALSE(report.cases[2].passed);
  CHECK(report.cases[2].failures[0].find("evidence max = 20") != std::string::npos);
  CHECK(report.cases[3].passed);
  CHECK_FALSE(report.cases[4].passed);
  CHECK(report.cases[4].failures[0].find("no slot 'nom'") != std::string::npos);
  CHECK_FALSE(report.ok());
  bool no_firing = false;
  for (const auto& p : report.problems)
    no_firing |= p.find("no passing case where it fires") != std::string::npos;
  CHECK(no_firing);
}

TEST_CASE("pack tests can use a SQL fixture as the store") {
  perfsage::test::TempDir dir;
  dir.write("p/pack.yaml",
            "name: p\nversion: 0.1.0\nuses: [run, op]\nrules:\n"
            "  - id: r\n    when: (run (has_device yes)) (op (name ?a) (core_type AI_CPU))\n"
            "    message: \"{?a}\"\n    subjects: [a]\n");
  dir.write("p/tests/fixtures/run.sql",
            "INSERT INTO runs(id, inputs, fingerprint, created) VALUES(1, '[]', 'f', 'now');\n"
            "INSERT INTO op_tasks(run_id, name, type, core_type, start_ns, dur_ns) VALUES"
            "(1, 'Cast_1', 'Cast', 'AI_CPU', 0, 5000), (1, 'Add_1', 'Add', 'AI_CORE', 0, 5000);\n");
  dir.write("p/tests/t.yaml",
            "cases:\n  - name: fixture\n    fixture: fixtures/run.sql\n    expect: [{rule: r, "
            "subjects: [Cast_1]}]\n");
  std::vector<LoadMessage> msgs;
  auto pack = read_pack(dir.path() / "p", msgs);
  REQUIRE(pack);
  auto report = run_pack_tests(*pack);
  INFO(report.str());
  REQUIRE(report.cases.size() == 1);
  CHECK(report.cases[0].passed);
}

TEST_CASE("facts queried on parallel read connections equal those of one connection") {
  test::TempDir dir;
  store::Database db((dir.path() / "store.db").string());
  int64_t run = ascend_run(db);
  std::vector<const facts::FactType*> types;
  for (const auto& t : facts::fact_types()) types.push_back(&t);
  facts::FactType broken{"broken", "", "", {}, "SELECT no_such_column FROM op_tasks"};
  types.push_back(&broken);

  auto one = prefetch_facts(db, run, types, 1);
  auto two = prefetch_facts(db, run, types, 2);
  REQUIRE(one.size() == types.size());
  REQUIRE(two.size() == types.size());
  auto text = [](const std::vector<facts::SlotValues>& rows) {
    std::string s;
    for (const auto& row : rows)
      for (const auto& [slot, v] : row)
        s += slot + "=" + v.text + "/" + std::to_string(v.integer) + "/" + std::to_string(v.real) +
             ";";
    return s;
  };
  for (const auto* t : types) {
    INFO("fact type " << t->name);
    CHECK(text(one.at(t->name).facts) == text(two.at(t->name).facts));
    CHECK(static_cast<bool>(one.at(t->name).error) == (t == &broken));
    CHECK(static_cast<bool>(two.at(t->name).error) == (t == &broken));
  }
  CHECK_FALSE(one.at("op").facts.empty());  // the run's ops are there to compare
}
