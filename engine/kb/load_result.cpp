#include "engine/kb/load_result.h"

#include <array>

namespace perfsage::engine {
namespace {

struct CodeInfo {
  LoadCode code;
  const char* name;
  const char* description;
};

constexpr std::array kCodes = {
    CodeInfo{LoadCode::err_file_read, "LOAD_ERR_FILE_READ",
             "The pack file could not be read; the pack is not loaded."},
    CodeInfo{LoadCode::err_yaml_parse, "LOAD_ERR_YAML_PARSE",
             "The file is not valid YAML; the pack is not loaded."},
    CodeInfo{LoadCode::err_yaml_validate, "LOAD_ERR_YAML_VALIDATE",
             "A key has the wrong type or value, or a required key is missing; the pack is not "
             "loaded."},
    CodeInfo{LoadCode::err_compile_condition, "LOAD_ERR_COMPILE_CONDITION",
             "A rule's `when` does not compile (CLIPS syntax, a function outside the sandbox, an "
             "unknown fact type or slot); the pack is not loaded."},
    CodeInfo{LoadCode::err_compile_output, "LOAD_ERR_COMPILE_OUTPUT",
             "A rule's message, subjects, evidence, gain, share or action does not compile; the "
             "pack is not loaded."},
    CodeInfo{LoadCode::err_validate, "LOAD_ERR_VALIDATE",
             "The pack is inconsistent (version, engine range, duplicate or invalid override); "
             "the pack is not loaded."},
    CodeInfo{LoadCode::unknown_key, "LOAD_UNKNOWN_KEY",
             "A key is not part of the pack format and is ignored (kept for forward "
             "compatibility)."},
    CodeInfo{LoadCode::unused_param, "LOAD_UNUSED_PARAM", "A param is never referenced."},
    CodeInfo{LoadCode::unused_list, "LOAD_UNUSED_LIST", "A list is never referenced."},
    CodeInfo{LoadCode::unused_macro, "LOAD_UNUSED_MACRO", "A macro is never referenced."},
    CodeInfo{LoadCode::unknown_param_override, "LOAD_UNKNOWN_PARAM_OVERRIDE",
             "The configuration overrides a param the pack does not declare; the value is "
             "ignored."},
    CodeInfo{LoadCode::deprecated_pack, "LOAD_DEPRECATED_PACK",
             "The pack's maturity is `deprecated`; it still runs."},
    CodeInfo{LoadCode::shadowed_pack, "LOAD_PACK_SHADOWED",
             "A later pack with the same name and a pack-level `override:` merges into or "
             "replaces an earlier one."},
    CodeInfo{LoadCode::lint_no_tests, "LINT_NO_TESTS",
             "The pack has no tests/*.yaml; `kb install` refuses it."},
    CodeInfo{LoadCode::lint_rule_untested, "LINT_RULE_UNTESTED",
             "No test case expects this rule to fire; every rule needs a firing and a silent "
             "case."},
    CodeInfo{LoadCode::lint_no_evidence, "LINT_NO_EVIDENCE",
             "The rule reports no evidence: users cannot see the numbers that made it fire."},
    CodeInfo{LoadCode::lint_no_action, "LINT_NO_ACTION",
             "The rule proposes no action (not even a code_hint) and does not say in `no_action` "
             "why it has none: the finding says what is wrong but not what to do."},
    CodeInfo{LoadCode::lint_no_gain, "LINT_NO_GAIN",
             "The rule's severity is auto but it has no gain: it is always ranked low."},
    CodeInfo{LoadCode::lint_no_references, "LINT_NO_REFERENCES",
             "The rule cites no reference (a vendor guide, a paper, a peer tool's check)."},
    CodeInfo{LoadCode::lint_param_no_doc, "LINT_PARAM_NO_DOC",
             "The param has no doc: users overriding it cannot tell what it means."},
    CodeInfo{LoadCode::lint_header, "LINT_HEADER",
             "The pack header lacks a description, license or maintainers."},
};
static_assert(kCodes.size() == static_cast<size_t>(LoadCode::lint_header) + 1,
              "every LoadCode needs a name and a description");

const CodeInfo& info(LoadCode c) {
  return kCodes[static_cast<size_t>(c)];
}

}  // namespace

const char* code_name(LoadCode c) {
  return info(c).name;
}
const char* code_description(LoadCode c) {
  return info(c).description;
}
bool is_error(LoadCode c) {
  return static_cast<int>(c) <= static_cast<int>(LoadCode::err_validate);
}

std::string LoadMessage::str() const {
  // Messages about the selection itself (--kb, kb.packs) have no file of their own.
  std::string out = file.empty() ? std::string("selection") : file;
  if (line > 0) {
    // Appended piecewise: GCC 12 reports a false -Wrestrict for "literal" + std::string here.
    out += ':';
    out += std::to_string(line);
    if (column > 0) {
      out += ':';
      out += std::to_string(column);
    }
  }
  out += error() ? ": error " : ": warning ";
  out += code_name(code);
  out += ": ";
  if (!pack.empty() || !item.empty()) {
    out += "[" + pack;
    if (!item.empty()) out += (pack.empty() ? "" : " ") + item;
    out += "] ";
  }
  out += text;
  return out;
}

bool has_errors(const std::vector<LoadMessage>& messages) {
  for (const auto& m : messages)
    if (m.error()) return true;
  return false;
}

}  // namespace perfsage::engine
