#include "app/kb_scaffold.h"

#include <fstream>
#include <regex>

namespace perfsage::app {
namespace fs = std::filesystem;
namespace {

constexpr const char* kPack =
    R"pack(# A perfsage knowledge-base pack. Format: docs/kb-authoring.md; fact types: perfsage kb facts.
name: NAME
version: 0.1.0
engine: ">=0.1"
description: >
  Say what the pack finds, on which runs, and where its thresholds come from (a vendor guide,
  a peer tool's check, a measurement).
license: Apache-2.0
maintainers: [your-name]
maturity: sandbox
applies_to: [ascend]
uses: [run, op]

params:
  min_share: {default: 0.05, doc: "share of one step an operator must take to be reported"}
  saving: {default: 0.5, doc: "assumed fraction of the operator's time a fix saves"}

rules:
  - id: heavy_op
    title: "{?name} takes {?step_share:pct} of the step"
    severity: auto
    category: operator
    tags: [example]
    # The run fact states the base: every gain is time per base unit (one step of one rank),
    # and an op's total over the profile divided by base_units is its time per step.
    when: |
      (run (base_us ?base&:(> ?base 0)) (base_units ?units&:(> ?units 0)))
      (op (name ?name) (type ?type) (total_us ?total))
      (test (>= (/ (/ ?total ?units) ?base) ${min_share}))
    message: >-
      {?name} ({?type}) takes {?per_step_us:us} per step, {?step_share:pct} of the
      {?base:us} step. Say here why that is a problem and what to change.
    subjects: [name]
    evidence:
      per_step_us: (/ ?total ?units)
      step_share: (/ (/ ?total ?units) ?base)
      total_us: ?total
    gain: (* ${saving} (/ ?total ?units))
    action:
      kind: code_hint
      hint: "describe the change for {?name} ({?type})"
    references:
      - https://example.org/where-the-threshold-comes-from
)pack";

constexpr const char* kTests =
    R"tests(# Test cases for NAME: run with `perfsage kb test <this pack's folder>`.
# Each case gives facts inline (or a fixture: a profiling dump or SQL inside this folder) and
# the findings expected; `expect: []` means nothing may fire. Every rule needs a case where it
# fires and one where it stays silent on facts of the types it matches.
cases:
  - name: an operator taking 20 % of the step is reported
    facts:
      run: [{device: ascend, has_device: "yes", base: step, base_us: 1000, base_units: 2}]
      op: [{name: MatMul_1, type: MatMul, core_type: AI_CORE, count: 2, total_us: 400}]
    expect:
      - rule: heavy_op
        subjects: [MatMul_1]
        evidence: {per_step_us: 200, step_share: 0.2}
        gain_min: 99
        gain_max: 101
  - name: an operator taking 1 % of the step is not
    facts:
      run: [{device: ascend, has_device: "yes", base: step, base_us: 1000, base_units: 2}]
      op: [{name: Add_1, type: Add, core_type: AI_VECTOR_CORE, count: 2, total_us: 20}]
    expect: []
)tests";

std::string with_name(std::string text, const std::string& name) {
  for (size_t at; (at = text.find("NAME")) != std::string::npos;) text.replace(at, 4, name);
  return text;
}

}  // namespace

Result<fs::path> scaffold_pack(const std::string& name, const fs::path& parent) {
  static const std::regex name_re("[a-z][a-z0-9_-]*");
  if (!std::regex_match(name, name_re))
    return Error{ErrorKind::usage, "pack name '" + name + "' must match [a-z][a-z0-9_-]*"};
  fs::path dir = parent / name;
  std::error_code ec;
  if (fs::exists(dir, ec)) return Error{ErrorKind::usage, dir.string() + " already exists"};
  fs::create_directories(dir / "tests", ec);
  if (ec) return Error{ErrorKind::usage, "cannot create " + dir.string() + ": " + ec.message()};
  std::ofstream(dir / "pack.yaml") << with_name(kPack, name);
  std::ofstream(dir / "tests" / (name + "_test.yaml")) << with_name(kTests, name);
  if (!fs::exists(dir / "tests" / (name + "_test.yaml")))
    return Error{ErrorKind::usage, "cannot write into " + dir.string()};
  return dir;
}

}  // namespace perfsage::app
