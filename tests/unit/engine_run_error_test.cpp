// A pack's run-time CLIPS error is one line naming the pack file, the rule, the YAML key and its
// line (engine/run_error.h), whether the pack runs in this process or an isolated child.
#include <catch2/catch.hpp>

#include "engine/evaluator.h"
#include "engine/kb/compiler.h"
#include "engine/kb/reader.h"
#include "engine/pack_child.h"
#include "engine/run_error.h"
#include "kb_support.h"

using namespace perfsage;
using namespace perfsage::engine;

namespace {

// Line 6 is `when`, line 8 `gain`, line 11 the evidence `per_op`.
std::string pack_text(const std::string& when_test, const std::string& gain,
                      const std::string& evidence) {
  return "name: faulty\nversion: 0.1.0\nuses: [op]\nrules:\n  - id: heavy_op\n"
         "    when: (op (name ?name) (total_us ?total)) (test " +
         when_test + ")\n    message: \"{?name}\"\n    gain: " + gain +
         "\n    subjects: [name]\n    evidence:\n      per_op: " + evidence + "\n";
}

store::PackResult run_pack(const std::string& text, bool isolated) {
  std::vector<LoadMessage> messages;
  auto pack = read_pack_text(text, "/packs/faulty/pack.yaml", messages);
  INFO(messages.size());
  REQUIRE(pack);
  pack->file = "/packs/faulty/pack.yaml";
  auto compiled = compile_pack(*pack, messages, *test::catalog());
  for (const auto& m : messages) INFO(m.str());
  REQUIRE(compiled.valid);
  FactSource source = [](const facts::FactType& t) {
    std::vector<facts::SlotValues> out;
    if (t.name == "op")
      out.push_back(
          {{"name", clips::Value::of_string("MatMul")}, {"total_us", clips::Value::of_float(100)}});
    return out;
  };
  return isolated ? evaluate_pack_in_child(compiled, source, 1000, "ascend", {}).result
                  : evaluate_pack(compiled, source, 1000, "ascend").result;
}

}  // namespace

TEST_CASE("a pack's CLIPS run-time errors name the pack file, the rule, the key and its line") {
  for (bool isolated : {false, true}) {
    INFO("isolated " << isolated);
    auto check = [&](const std::string& text, const std::string& expected) {
      auto r = run_pack(text, isolated);
      CHECK(r.status == "error");
      CHECK(r.error == expected);
      CHECK(r.error.find('\n') == std::string::npos);
    };
    check(pack_text("(> ?total 0)", "(/ ?total 0)", "?total"),
          "/packs/faulty/pack.yaml:8:11: rule heavy_op, gain: divide by zero in (/ ...) "
          "[PRNTUTIL7]");
    check(pack_text("(> (/ ?total 0) 1)", "?total", "?total"),
          "/packs/faulty/pack.yaml:6:11: rule heavy_op, when: divide by zero in (/ ...) "
          "[PRNTUTIL7]");
    check(pack_text("(> ?total 0)", "?total", "(div ?total 0)"),
          "/packs/faulty/pack.yaml:11:15: rule heavy_op, evidence per_op: divide by zero in "
          "(div ...) [PERFSAGE1]");
    // string-to-field's result in a number slot: said, not an empty reason.
    check(pack_text("(> ?total 0)", "(string-to-field \"\")", "?total"),
          "/packs/faulty/pack.yaml:8:11: rule heavy_op, gain: evaluated to EOF, which is not a "
          "number [CSTRNCHK1]");
    check(pack_text("(> ?total 0)", "(+ 1 (string-to-field \"x\"))", "?total"),
          "/packs/faulty/pack.yaml:8:11: rule heavy_op, gain: Function + expected argument #2 "
          "to be of type integer or float [ARGACCES5]");
  }
}

TEST_CASE("CLIPS text without a rule still becomes one line naming the pack file") {
  Pack p;
  p.name = "faulty";
  p.file = "/packs/faulty/pack.yaml";
  CHECK(describe_run_error(p, "\n[SCANNER1] Encountered End-Of-File\nwhile scanning\n") ==
        "/packs/faulty/pack.yaml: Encountered End-Of-File while scanning [SCANNER1]");
  CHECK(describe_run_error(p, "") ==
        "/packs/faulty/pack.yaml: CLIPS stopped with an evaluation error and said nothing more");
}
