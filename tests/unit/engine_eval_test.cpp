// Evaluator over a store, pack statuses, ranking, and the built-in packs' own tests.
#include <catch2/catch.hpp>

#include "analyzer_resources.h"
#include "engine/evaluator.h"
#include "engine/fact_prefetch.h"
#include "engine/finding.h"
#include "engine/kb/pack_tests.h"
#include "engine/kb/reader.h"
#include "kb_support.h"
#include "store/run_writer.h"
#include "test_support.h"

using namespace perfsage;
using namespace perfsage::engine;

namespace {

// What app/ gives pack tests: the analyzers' fact types, and the analyzers for fixtures.
PackTestOptions test_options() {
  PackTestOptions options;
  options.catalog = test::catalog();
  options.analyze = [](store::Database& db, int64_t run) { test::analyze(db, run); };
  return options;
}

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
  test::analyze(db, w.run_id());
  return w.run_id();
}

std::vector<std::filesystem::path> builtin_pack_dirs() {
  return {test::kb_dir() / "builtin" / "aicpu", test::kb_dir() / "builtin" / "gpu_runtime"};
}

const perfsage::v1::Evidence* evidence(const perfsage::v1::Finding& f, const std::string& name) {
  for (const auto& e : f.evidence())
    if (e.name() == name) return &e;
  return nullptr;
}

}  // namespace

TEST_CASE("evaluate runs the built-in packs over an Ascend run and ranks the findings") {
  store::Database db(":memory:");
  int64_t run = ascend_run(db);
  auto loaded = load_pack_set(test::builtin_selection());
  auto ev = evaluate(db, run, loaded.set);
  std::map<std::string, std::string> status;
  for (const auto& p : ev.packs) status[p.pack] = p.status;
  CHECK(status["aicpu"] == "ok");
  CHECK(status["gpu_runtime"] == "skipped");  // applies to cuda only
  for (const auto& f : ev.findings) UNSCOPED_INFO(f.rule() << " " << f.message());
  REQUIRE(ev.findings.size() == 5);
  // The roofline analyzer found no shapes to place the ops with: said, as information, last.
  CHECK(ev.findings.back().rule() == "insufficient_data");
  CHECK(ev.findings.back().severity() == perfsage::v1::SEVERITY_INFO);
  // The 300 ms broadcast is 97 % of device time and no step breakdown exists: medium, first.
  CHECK(ev.findings[0].rule() == "communication_dominates");
  CHECK(ev.findings[0].severity() == perfsage::v1::SEVERITY_MEDIUM);
  ev.findings.erase(ev.findings.begin());
  // Unique: 3 ms of 309 ms device time -> low, but the largest gain comes first within low.
  const auto& top = ev.findings[0];
  CHECK(top.rule() == "aicpu_op");
  CHECK(std::vector<std::string>(top.subjects().begin(), top.subjects().end()) ==
        std::vector<std::string>{"Unique_1"});
  CHECK(top.estimated_gain_us() == Approx(2700));
  const auto& cast = ev.findings[1];
  CHECK(cast.rule() == "aicpu_dtype");
  CHECK(cast.subjects(0) == "trans_Cast_5");
  CHECK(cast.message().find("UINT64") != std::string::npos);
  CHECK(cast.message().find("750.0 µs") != std::string::npos);
  REQUIRE(evidence(cast, "count"));
  CHECK(evidence(cast, "count")->number() == 5);
  CHECK(evidence(cast, "total_us")->unit() == "us");
  CHECK(evidence(cast, "dtype")->text() == "UINT64");
  CHECK(cast.action().kind() == "code_hint");
  CHECK(cast.action().code_hint().hint().find("trans_Cast_5") != std::string::npos);
  CHECK(cast.severity() == perfsage::v1::SEVERITY_LOW);
  CHECK(cast.pack_version() == "1.0.0");
  // The id is stable: pack, rule and subjects, nothing of this run.
  CHECK(cast.id() == finding_id("aicpu", "aicpu_dtype", {"trans_Cast_5"}));
  CHECK(cast.id().size() == 16);
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
  auto loaded = load_pack_set(test::untrusted_selection({dir.path()}));
  for (bool isolate : {false, true}) {
    EvaluationOptions opts;
    opts.budget.max_firings = 20;  // the cross product fires 64 times
    opts.isolate_untrusted = isolate;
    auto ev = evaluate(db, run, loaded.set, opts);
    std::map<std::string, store::PackResult> by;
    for (const auto& p : ev.packs) by[p.pack] = p;
    INFO("isolated " << isolate);
    CHECK(by["slow"].status == "budget_exceeded");
    CHECK(by["slow"].error.find("firing") != std::string::npos);
    CHECK(by["broken"].status == "error");
    CHECK(by["broken"].error.find("divide by zero") != std::string::npos);
    CHECK(by["fine"].status == "ok");
    CHECK(by["fine"].fired == 3);
    CHECK(by["fine"].isolated == isolate);
    REQUIRE(ev.findings.size() == 3);
    for (const auto& r : ev.findings) CHECK(r.pack() == "fine");
  }
}

TEST_CASE("ranking: severity first, then gain; repeats of an id removed") {
  std::vector<perfsage::v1::Finding> recs(4);
  auto set = [](perfsage::v1::Finding& f, const char* rule, perfsage::v1::Severity s, double gain) {
    f.set_pack("p");
    f.set_rule(rule);
    f.set_severity(s);
    f.set_estimated_gain_us(gain);
    f.set_id(finding_id("p", rule, {}));
  };
  set(recs[0], "a", perfsage::v1::SEVERITY_LOW, 900);
  set(recs[1], "b", perfsage::v1::SEVERITY_HIGH, 10);
  set(recs[2], "c", perfsage::v1::SEVERITY_HIGH, 50);
  recs[3] = recs[2];
  CHECK(rank_findings(recs) == 1);
  REQUIRE(recs.size() == 3);
  CHECK(recs[0].rule() == "c");
  CHECK(recs[1].rule() == "b");
  CHECK(recs[2].rule() == "a");
  CHECK(severity_from_share(0.05) == perfsage::v1::SEVERITY_HIGH);
  CHECK(severity_from_share(0.031) == perfsage::v1::SEVERITY_MEDIUM);
  CHECK(severity_from_share(0.0) == perfsage::v1::SEVERITY_LOW);
  CHECK(parse_severity("HIGH") == perfsage::v1::SEVERITY_HIGH);
  CHECK(parse_severity("Medium") == perfsage::v1::SEVERITY_MEDIUM);
  CHECK(parse_severity("urgent") == perfsage::v1::SEVERITY_UNSPECIFIED);
}

TEST_CASE("finding ids depend on pack, rule and subjects only, in order") {
  auto a = finding_id("aicpu", "aicpu_op", {"Cast_1", "Cast_2"});
  CHECK(a == finding_id("aicpu", "aicpu_op", {"Cast_1", "Cast_2"}));
  CHECK(a != finding_id("aicpu", "aicpu_op", {"Cast_2", "Cast_1"}));
  CHECK(a != finding_id("aicpu", "aicpu_dtype", {"Cast_1", "Cast_2"}));
  CHECK(a != finding_id("other", "aicpu_op", {"Cast_1", "Cast_2"}));
  // No concatenation ambiguity: ("ab","c") and ("a","bc") differ.
  CHECK(finding_id("p", "r", {"ab", "c"}) != finding_id("p", "r", {"a", "bc"}));
  // Fixed value: the id must not change between releases or machines.
  CHECK(finding_id("aicpu", "aicpu_op", {"Unique_1"}) == "39de0a44c5295f23");
}

TEST_CASE("built-in packs pass their own tests with firing and non-firing coverage") {
  for (const auto& dir : builtin_pack_dirs()) {
    std::vector<LoadMessage> msgs;
    auto pack = read_pack(dir, msgs);
    REQUIRE(pack);
    pack->trusted = true;
    auto report = run_pack_tests(*pack, test_options());
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
  auto report = run_pack_tests(*pack, test_options());
  REQUIRE(report.cases.size() == 5);
  CHECK_FALSE(report.cases[0].passed);
  CHECK_FALSE(report.cases[1].passed);
  CHECK(report.cases[1].failures[0].find("unexpected finding r [A]") != std::string::npos);
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
  PackTestOptions options = test_options();
  auto report = run_pack_tests(*pack, options);
  INFO(report.str());
  REQUIRE(report.cases.size() == 1);
  CHECK(report.cases[0].passed);
}

TEST_CASE("facts queried on parallel read connections equal those of one connection") {
  test::TempDir dir;
  store::Database db((dir.path() / "store.db").string());
  int64_t run = ascend_run(db);
  std::vector<const facts::FactType*> types;
  for (const auto& t : test::catalog()->types()) types.push_back(&t);
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
