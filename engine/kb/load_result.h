// Load results for knowledge-base packs, modelled on Falco's: a code with a short name and
// an explanation, a severity (error or warning), and the file:line:column it concerns.
//
//   for (const auto& m : loaded.messages) std::cerr << m.str() << "\n";
//   // knowledge_bases/builtin/aicpu/pack.yaml:12:7: error LOAD_ERR_COMPILE_CONDITION: ...
#pragma once

#include <string>
#include <vector>

namespace perfsage::engine {

enum class LoadCode {
  // errors
  err_file_read,          // LOAD_ERR_FILE_READ
  err_yaml_parse,         // LOAD_ERR_YAML_PARSE
  err_yaml_validate,      // LOAD_ERR_YAML_VALIDATE: wrong type, missing required key, bad value
  err_compile_condition,  // LOAD_ERR_COMPILE_CONDITION: `when` rejected (syntax, sandbox, facts)
  err_compile_output,     // LOAD_ERR_COMPILE_OUTPUT: message, evidence, gain, share, action
  err_validate,           // LOAD_ERR_VALIDATE: versions, engine range, overrides, duplicates
  // warnings
  unknown_key,             // LOAD_UNKNOWN_KEY
  unused_param,            // LOAD_UNUSED_PARAM
  unused_list,             // LOAD_UNUSED_LIST
  unused_macro,            // LOAD_UNUSED_MACRO
  unknown_param_override,  // LOAD_UNKNOWN_PARAM_OVERRIDE: config overrides a param the pack lacks
  deprecated_pack,         // LOAD_DEPRECATED_PACK
  shadowed_pack,           // LOAD_PACK_SHADOWED: a later search path redefines a pack
  // lint (perfsage kb lint): rules about rules, warnings
  lint_no_tests,       // LINT_NO_TESTS
  lint_rule_untested,  // LINT_RULE_UNTESTED: no expectation names the rule
  lint_no_evidence,    // LINT_NO_EVIDENCE
  lint_no_action,      // LINT_NO_ACTION: no fix proposed
  lint_no_gain,        // LINT_NO_GAIN: severity auto without a gain
  lint_no_references,  // LINT_NO_REFERENCES
  lint_param_no_doc,   // LINT_PARAM_NO_DOC
  lint_header,         // LINT_HEADER: description, license, maintainers missing
};

const char* code_name(LoadCode c);         // "LOAD_ERR_YAML_PARSE", ...
const char* code_description(LoadCode c);  // what it means and its impact
bool is_error(LoadCode c);

struct LoadMessage {
  LoadCode code = LoadCode::err_validate;
  std::string file;
  int line = 0, column = 0;  // 1-based; 0 = unknown
  std::string pack, item;    // pack name, and "rule <id>" / "param <name>" / ...
  std::string text;

  bool error() const { return is_error(code); }
  // "file:line:col: error CODE: [pack/item] text"
  std::string str() const;
};

bool has_errors(const std::vector<LoadMessage>& messages);

}  // namespace perfsage::engine
