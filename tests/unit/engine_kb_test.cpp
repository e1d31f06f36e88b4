// Pack reader and compiler: load results with codes and file:line:column, sandbox at load.
#include <catch2/catch.hpp>

#include "engine/kb/action_map.h"
#include "engine/kb/compiler.h"
#include "engine/kb/message_text.h"
#include "engine/kb/reader.h"
#include "engine/kb/selection.h"
#include "kb_support.h"
#include "test_support.h"

using namespace perfsage::engine;

namespace {

const char* kHeader = R"(name: demo
version: 1.2.3
engine: ">=0.1"
uses: [op]
params:
  min_us: 20
rules:
)";

struct Compiled {
  std::vector<LoadMessage> msgs;
  CompiledPack pack;
};

Compiled compile_text(const std::string& rules) {
  Compiled c;
  auto p = read_pack_text(std::string(kHeader) + rules, "demo/pack.yaml", c.msgs);
  if (p) c.pack = compile_pack(*p, c.msgs, *perfsage::test::catalog());
  return c;
}

const LoadMessage* first_error(const std::vector<LoadMessage>& msgs) {
  for (const auto& m : msgs)
    if (m.error()) return &m;
  return nullptr;
}

}  // namespace

TEST_CASE("a valid rule compiles to a defrule asserting a recommendation") {
  auto c = compile_text(R"(  - id: slow
    when: |
      (op (name ?n) (max_us ?m&:(>= ?m ${min_us})))
    message: "{?n} took {?m:us}"
    subjects: [n]
    evidence: {max_us: "?m"}
    gain: (* ?m 0.5)
)");
  INFO((c.msgs.empty() ? "" : c.msgs[0].str()));
  REQUIRE(c.pack.valid);
  CHECK(c.pack.constructs.find("(defrule slow") != std::string::npos);
  CHECK(c.pack.constructs.find(">= ?m 20") != std::string::npos);  // param substituted
  REQUIRE(c.pack.rules.size() == 1);
  CHECK(c.pack.rules[0].vars == std::vector<std::string>{"n", "m"});
  CHECK(c.pack.rules[0].fact_types == std::vector<std::string>{"op"});
}

TEST_CASE("a pack calling system is rejected at load with a clear message and position") {
  auto c = compile_text(R"(  - id: evil
    when: |
      (op (name ?n))
      (test (system "rm -rf /"))
    message: "x"
)");
  CHECK_FALSE(c.pack.valid);
  const auto* e = first_error(c.msgs);
  REQUIRE(e);
  CHECK(e->code == LoadCode::err_compile_condition);
  CHECK(e->text.find("'system' is not allowed") != std::string::npos);
  CHECK(e->text.find("operating system") != std::string::npos);
  CHECK(e->line == 11);  // the (test ...) line in YAML
  CHECK(e->column == 14);
  CHECK(e->str().rfind("demo/pack.yaml:11:14: error LOAD_ERR_COMPILE_CONDITION", 0) == 0);
}

TEST_CASE("compile errors name the YAML line and column") {
  SECTION("unknown slot") {
    auto c = compile_text(
        "  - id: r\n    when: |\n      (op (name ?n))\n      (op (bogus ?b))\n    message: m\n");
    const auto* e = first_error(c.msgs);
    REQUIRE(e);
    CHECK(e->text.find("no slot 'bogus'") != std::string::npos);
    CHECK(e->line == 11);
    CHECK(e->column == 12);
  }
  SECTION("fact type not listed in uses") {
    auto c = compile_text("  - id: r\n    when: (kernel (name ?n))\n    message: m\n");
    const auto* e = first_error(c.msgs);
    REQUIRE(e);
    CHECK(e->text.find("not listed in 'uses'") != std::string::npos);
    CHECK(e->line == 9);
    CHECK(e->column == 12);
  }
  SECTION("unbalanced parentheses") {
    auto c = compile_text("  - id: r\n    when: |\n      (op (name ?n)\n    message: m\n");
    const auto* e = first_error(c.msgs);
    REQUIRE(e);
    CHECK(e->text.find("unbalanced") != std::string::npos);
    CHECK(e->line == 10);
  }
  SECTION("escaping the defrule with => is refused") {
    auto c = compile_text("  - id: r\n    when: (op (name ?n)) => (assert (x))\n    message: m\n");
    REQUIRE(first_error(c.msgs));
    CHECK(first_error(c.msgs)->text.find("'=>'") != std::string::npos);
  }
  SECTION("CLIPS's own errors map back to the when line") {
    // A constraint CLIPS rejects (type mismatch with the slot) is only caught by CLIPS.
    auto c = compile_text(
        "  - id: r\n    when: |\n      (op (name ?n))\n      (op (count abc))\n    message: m\n");
    const auto* e = first_error(c.msgs);
    REQUIRE(e);
    CHECK(e->text.find("CLIPS:") != std::string::npos);
    CHECK(e->line == 11);
  }
  SECTION("message variable not bound") {
    auto c = compile_text("  - id: r\n    when: (op (name ?n))\n    message: \"{?zzz}\"\n");
    const auto* e = first_error(c.msgs);
    REQUIRE(e);
    CHECK(e->code == LoadCode::err_compile_output);
    CHECK(e->text.find("{?zzz}") != std::string::npos);
    CHECK(e->line == 10);
  }
  SECTION("unknown ${name}") {
    auto c =
        compile_text("  - id: r\n    when: (op (max_us ?m&:(> ?m ${nope})))\n    message: m\n");
    REQUIRE(first_error(c.msgs));
    CHECK(first_error(c.msgs)->text.find("${nope}") != std::string::npos);
  }
  SECTION("gain with a forbidden function") {
    auto c = compile_text(
        "  - id: r\n    when: (op (max_us ?m))\n    message: m\n    gain: (eval \"(+ 1 2)\")\n");
    REQUIRE(first_error(c.msgs));
    CHECK(first_error(c.msgs)->code == LoadCode::err_compile_output);
    CHECK(first_error(c.msgs)->line == 11);
  }
}

TEST_CASE("header validation, unknown keys and YAML syntax errors") {
  std::vector<LoadMessage> msgs;
  auto p = read_pack_text("name: x\nversion: 1.0\nrules: []\n", "x.yaml", msgs);
  CHECK_FALSE(p);
  REQUIRE(first_error(msgs));
  CHECK(first_error(msgs)->code == LoadCode::err_validate);
  CHECK(first_error(msgs)->line == 2);

  msgs.clear();
  p = read_pack_text(
      "name: x\nversion: 1.0.0\ncolour: blue\nrules:\n  - id: a\n    when: (op)\n    messag: m\n",
      "x.yaml", msgs);
  REQUIRE(p);
  int unknown = 0;
  for (const auto& m : msgs) unknown += m.code == LoadCode::unknown_key;
  CHECK(unknown == 2);

  msgs.clear();
  p = read_pack_text("name: x\nversion: [1\n", "x.yaml", msgs);
  CHECK_FALSE(p);
  REQUIRE(first_error(msgs));
  CHECK(first_error(msgs)->code == LoadCode::err_yaml_parse);
  CHECK(first_error(msgs)->line == 2);  // where the '[' opens, not where the parser gave up
  CHECK(first_error(msgs)->column == 10);

  msgs.clear();
  p = read_pack_text("name: x\nversion: 1.0.0\nuses: [op\nparams: {a: \"]\", b: 1\nrules: []\n",
                     "x.yaml", msgs);
  CHECK_FALSE(p);
  REQUIRE(first_error(msgs));
  CHECK(first_error(msgs)->line == 3);
  CHECK(first_error(msgs)->text.find("never closed") != std::string::npos);

  msgs.clear();  // a bad indentation is reported on its own line
  p = read_pack_text("name: x\nversion: 1.0.0\nrules:\n  - id: r\n    when: (op)\n   message: m\n",
                     "x.yaml", msgs);
  CHECK_FALSE(p);
  REQUIRE(first_error(msgs));
  CHECK(first_error(msgs)->line == 6);

  msgs.clear();
  p = read_pack_text("name: x\nversion: 1.0.0\nengine: \">=9\"\nrules: []\n", "x.yaml", msgs);
  REQUIRE(p);
  auto c = compile_pack(*p, msgs, *perfsage::test::catalog());
  CHECK_FALSE(c.valid);
  CHECK(c.error.find("requires engine >=9") != std::string::npos);
}

TEST_CASE("engine version ranges") {
  std::string why;
  CHECK(version_satisfies("0.1.0", ">=0.1", why));
  CHECK(version_satisfies("0.1.0", ">=0.1, <2", why));
  CHECK_FALSE(version_satisfies("0.1.0", ">0.1.0", why));
  CHECK(version_satisfies("1.4.0", "^1.2", why));
  CHECK_FALSE(version_satisfies("2.0.0", "^1.2", why));
  CHECK_FALSE(version_satisfies("1.0.0", "soon", why));
  CHECK(why.find("cannot parse") != std::string::npos);
}

TEST_CASE("unused params warn and config overrides replace param values") {
  std::vector<LoadMessage> msgs;
  auto p =
      read_pack_text(std::string(kHeader) + "  - id: r\n    when: (op (name ?n))\n    message: m\n",
                     "demo.yaml", msgs);
  REQUIRE(p);
  auto c = compile_pack(*p, msgs, *perfsage::test::catalog(),
                        {{"min_us", {"50", {}}}, {"other", {"1", {}}}});
  CHECK(c.valid);
  bool unused = false, unknown_override = false;
  for (const auto& m : msgs) {
    unused |= m.code == LoadCode::unused_param;
    unknown_override |= m.code == LoadCode::unknown_param_override;
  }
  CHECK(unused);
  CHECK(unknown_override);
  CHECK(c.pack.params[0].value.clips == "50");
}

TEST_CASE("selection: search paths, override merge with replace/append, enable/disable") {
  perfsage::test::TempDir dir;
  dir.write("a/demo/pack.yaml",
            std::string(kHeader) +
                "  - id: r1\n    tags: [noisy]\n    when: (op (name ?n))\n    message: m1\n"
                "  - id: r2\n    when: (op (name ?n))\n    message: m2\n"
                "    action: {kind: code_hint, hint: h}\n");
  dir.write("b/demo/pack.yaml",
            "name: demo\nversion: 1.2.4\noverride: merge\nrules:\n"
            "  - id: r2\n    override: replace\n    message: replaced\n"
            "    no_action: a note about the data\n"
            "  - id: r1\n    override: append\n    when: (op (count ?c&:(> ?c 1)))\n");
  auto sel = perfsage::test::untrusted_selection({dir.path() / "a", dir.path() / "b"});
  auto loaded = load_pack_set(sel);
  REQUIRE(loaded.set.packs.size() == 1);
  const auto& pack = loaded.set.packs[0];
  INFO(pack.error);
  REQUIRE(pack.valid);
  CHECK(pack.pack.rule("r2")->message.text == "replaced");
  // A rule has an action or says why it has none: replacing one by the other drops the first.
  CHECK_FALSE(pack.pack.rule("r2")->action);
  CHECK(pack.pack.rule("r2")->no_action == "a note about the data");
  CHECK(pack.pack.rule("r1")->when.text.find("count") != std::string::npos);
  bool said = false;
  for (const auto& m : loaded.messages) said |= m.code == LoadCode::shadowed_pack;
  CHECK(said);  // a merge is always reported

  sel.disable = {"tag:noisy"};
  loaded = load_pack_set(sel);
  CHECK(loaded.set.packs[0].rules.size() == 1);
  sel.disable = {"dem*"};
  CHECK(load_pack_set(sel).set.packs.empty());

  // A later pack of the same name without a pack-level override is refused; the earlier one
  // keeps serving.
  dir.write("c/demo/pack.yaml",
            "name: demo\nversion: 1.2.5\nrules:\n  - id: r3\n    when: (op (name ?n))\n"
            "    message: sneaky\n");
  sel.disable.clear();
  sel.paths.push_back({dir.path() / "c", "community", false, false, {}});
  loaded = load_pack_set(sel);
  CHECK(has_errors(loaded.messages));
  REQUIRE(loaded.set.packs.size() == 1);
  CHECK(loaded.set.packs[0].pack.rule("r3") == nullptr);
}

TEST_CASE("selection: globs, missing paths, params for unknown packs, maturity floor") {
  perfsage::test::TempDir dir;
  dir.write("p/gpu_one/pack.yaml", "name: gpu_one\nversion: 1.0.0\nmaturity: stable\nrules: []\n");
  dir.write("p/gpu_two/pack.yaml", "name: gpu_two\nversion: 1.0.0\nmaturity: sandbox\nrules: []\n");
  dir.write("p/cpu/pack.yaml", "name: cpu\nversion: 1.0.0\nrules: []\n");
  auto sel = perfsage::test::untrusted_selection({dir.path() / "p"});
  sel.only = {"gpu_*"};
  auto loaded = load_pack_set(sel);
  CHECK_FALSE(has_errors(loaded.messages));
  CHECK(loaded.set.packs.size() == 2);
  sel.min_maturity = "incubating";
  loaded = load_pack_set(sel);
  REQUIRE(loaded.set.packs.size() == 1);
  CHECK(loaded.set.packs[0].pack.name == "gpu_one");

  sel = perfsage::test::untrusted_selection({dir.path() / "p", dir.path() / "missing"});
  loaded = load_pack_set(sel);
  CHECK(has_errors(loaded.messages));  // a configured path that does not exist
  sel.paths.pop_back();
  sel.params["nosuch"]["x"] = {"1", {"cfg.yaml", 3, 5}};
  loaded = load_pack_set(sel);
  REQUIRE(has_errors(loaded.messages));
  bool named = false;
  for (const auto& m : loaded.messages)
    named |= m.error() && m.file == "cfg.yaml" && m.line == 3 &&
             m.text.find("nosuch") != std::string::npos;
  CHECK(named);

  // A pack that does not read is named as such, not as "no pack matches".
  dir.write("p/broken/pack.yaml", "name: broken\nversion: [1\n");
  sel = perfsage::test::untrusted_selection({dir.path() / "p"});
  sel.only = {"broken"};
  loaded = load_pack_set(sel);
  std::string all;
  for (const auto& m : loaded.messages) all += m.str() + "\n";
  CHECK(all.find("could not be read") != std::string::npos);
  CHECK(all.find("no pack matches") == std::string::npos);
}

TEST_CASE("a param override of the wrong type is an error at the override") {
  std::vector<LoadMessage> msgs;
  auto p = read_pack_text(std::string(kHeader) +
                              "  - id: r\n    when: (op (max_us ?m&:(> ?m ${min_us})))\n"
                              "    message: m\n",
                          "demo.yaml", msgs);
  REQUIRE(p);
  auto c = compile_pack(*p, msgs, *perfsage::test::catalog(),
                        {{"min_us", {"fast", {"cfg.yaml", 7, 12}}}});
  CHECK_FALSE(c.valid);
  bool at_override = false;
  for (const auto& m : msgs)
    at_override |= m.error() && m.file == "cfg.yaml" && m.line == 7 && m.column == 12 &&
                   m.text.find("is a string") != std::string::npos;
  CHECK(at_override);
}

TEST_CASE("built-in packs are found, list and load without errors") {
  auto sel = perfsage::test::builtin_selection();
  auto loaded = load_pack_set(sel);
  for (const auto& m : loaded.messages) INFO(m.str());
  CHECK_FALSE(has_errors(loaded.messages));
  std::set<std::string> names;
  for (const auto& p : loaded.set.packs) {
    INFO(p.error);
    CHECK(p.valid);
    CHECK(p.pack.source == "builtin");
    CHECK(p.pack.trusted);
    names.insert(p.pack.name);
  }
  CHECK(names.count("aicpu"));
  CHECK(names.count("gpu_runtime"));
  std::vector<LoadMessage> msgs;
  auto infos = list_packs(sel, msgs);
  CHECK(infos.size() >= 2);
  for (const auto& i : infos) CHECK(i.source == "builtin");
  sel.only = {"aicpu"};
  CHECK(load_pack_set(sel).set.packs.size() == 1);
}

TEST_CASE("glob matching") {
  CHECK(glob_match("a*", "aicpu"));
  CHECK(glob_match("*.r?", "demo.r1"));
  CHECK_FALSE(glob_match("gpu*", "aicpu"));
  CHECK(glob_match("*", ""));
}

TEST_CASE("numbers in messages are written for people, never with an exponent") {
  CHECK(format_number(12726300) == "12726300");
  CHECK(format_number(12726300.4) == "12726300");
  CHECK(format_number(12726.53) == "12727");
  CHECK(format_number(42.126) == "42.13");
  CHECK(format_number(3.5) == "3.5");
  CHECK(format_number(0.0012346) == "0.001235");
  CHECK(format_number(-7.25) == "-7.25");
  CHECK(format_number(0) == "0");
  std::map<std::string, clips::Value> vars{{"t", clips::Value::of_float(12726300.5)},
                                           {"n", clips::Value::of_int(7)}};
  CHECK(render_template("{?t} us over {?n:int} calls, {?t:us}", vars) ==
        "12726300 us over 7 calls, 12.73 s");
}

TEST_CASE("count:NOUN puts the noun in the number of the count") {
  // issue 26 item 21: packs printed "1 rank(s)", front ends "1 findings".
  std::map<std::string, clips::Value> vars{{"one", clips::Value::of_int(1)},
                                           {"eight", clips::Value::of_float(8.0)},
                                           {"none", clips::Value::of_int(0)}};
  CHECK(render_template("{?one:count:rank}, {?eight:count:rank}, {?none:count:step}", vars) ==
        "1 rank, 8 ranks, 0 steps");
  CHECK(render_template("{?one:count:child/children} and {?eight:count:child/children}", vars) ==
        "1 child and 8 children");
  CHECK(render_template("{?eight:count:such chain}", vars) == "8 such chains");
}

TEST_CASE("evidence reads as the text report writes it, its unit from the key's name") {
  // issue 26 item 16: the HTML and JSON showed "0.346517 ratio", "21845.6 us", "3 count".
  CHECK(format_evidence("exposed_share", 0.346517) == "34.7 %");
  CHECK(format_evidence("comm_us", 21845.6) == "21.85 ms");
  CHECK(format_evidence("calls", 3) == "3");
  CHECK(format_evidence("op_compile_share_median", 0.0235858) == "2.4 %");
  CHECK(format_evidence("wait_ms", 1.5) == "1.50 ms");
  CHECK(format_evidence("with_bytes", 12) == "12");  // a count of ops, not a size
  CHECK(evidence_unit("exposed_share") == "ratio");
  CHECK(evidence_unit("utilisation") == "ratio");
  CHECK(evidence_unit("achieved") == "FLOP/s");
  CHECK(evidence_unit("calls") == "count");
  CHECK(evidence_unit("with_bytes").empty());
}

TEST_CASE("a list entry holding one variable with a list gives one action item per element") {
  // issue 26 item 16: ops: ["{?top}"] with top_ops "a;b" was one string "a;b" in the JSON.
  Action a;
  a.kind = "aoe";
  a.params.push_back({"ops", ActionParam::Kind::list, "", {"{?top}"}});
  a.params.push_back({"hint", ActionParam::Kind::string, "tune {?top}", {}});
  clips::Value multi;
  multi.type = clips::ValueType::Multifield;
  multi.items = {clips::Value::of_string("x"), clips::Value::of_string("y")};
  std::map<std::string, clips::Value> vars{{"top", clips::Value::of_string("MatMul_1; Add_2;")}};
  auto built = build_action(a, vars);
  CHECK(std::vector<std::string>(built.aoe().ops().begin(), built.aoe().ops().end()) ==
        std::vector<std::string>{"MatMul_1", "Add_2"});
  CHECK(built.aoe().hint() == "tune MatMul_1; Add_2;");  // a text field keeps the text
  vars["top"] = multi;
  built = build_action(a, vars);
  CHECK(built.aoe().ops_size() == 2);
  // Text around the variable makes one item, as written.
  a.params[0].items = {"op {?top}"};
  vars["top"] = clips::Value::of_string("a;b");
  CHECK(build_action(a, vars).aoe().ops_size() == 1);
}

TEST_CASE("selection: packs read and compiled in parallel say what a serial load says, in order") {
  perfsage::test::TempDir dir;
  // Eight packs over two search paths: warnings (an unused param), a rule that does not compile,
  // a pack.yaml that does not read, and valid packs between them.
  for (int i = 0; i < 8; ++i) {
    const std::string name = std::string("p") + std::to_string(i);
    std::string yaml = "name: " + name + "\nversion: 1.0.0\nuses: [op]\nparams:\n  unused_" +
                       std::to_string(i) + ": 1\nrules:\n  - id: r\n    when: (op (name ?n))\n" +
                       "    message: m\n";
    if (i == 3) yaml += "  - id: bad\n    when: (op (name ?n)) (no-such-fact)\n    message: m\n";
    if (i == 5) yaml = "name: " + name + "\nversion: [1\n";
    dir.write(std::string(i < 4 ? "a/" : "b/") + name + "/pack.yaml", yaml);
  }
  auto sel = perfsage::test::untrusted_selection({dir.path() / "a", dir.path() / "b"});
  auto loaded = load_pack_set(sel);

  // The same, one pack after another: every pack read, then every pack compiled.
  std::vector<LoadMessage> serial;
  std::vector<Pack> read;
  for (const char* root : {"a", "b"})
    for (int i = 0; i < 8; ++i) {
      auto d = dir.path() / root / (std::string("p") + std::to_string(i));
      if (!std::filesystem::exists(d)) continue;
      if (auto p = read_pack(d, serial)) read.push_back(std::move(*p));
    }
  std::vector<std::string> names;
  for (const auto& p : read) {
    names.push_back(p.name);
    compile_pack(p, serial, *perfsage::test::catalog());
  }
  std::vector<std::string> said, expected;
  for (const auto& m : loaded.messages) said.push_back(m.str());
  for (const auto& m : serial) expected.push_back(m.str());
  CHECK(said == expected);
  REQUIRE(loaded.set.packs.size() == 8);  // the unreadable one too, last, named by its folder
  for (size_t i = 0; i < names.size(); ++i) CHECK(loaded.set.packs[i].pack.name == names[i]);
  CHECK(loaded.set.packs[7].pack.name == "p5");
  CHECK_FALSE(loaded.set.packs[3].valid);
  CHECK(loaded.set.packs[0].valid);
}
