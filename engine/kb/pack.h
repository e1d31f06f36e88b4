// The pack model: what a knowledge-base pack's pack.yaml says, with source positions so
// every later error can name file:line:column. Produced by read_pack (reader.h), turned
// into CLIPS by compile_pack (compiler.h).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace perfsage::engine {

// 1-based position in a YAML file.
struct SourcePos {
  std::string file;
  int line = 0, column = 0;
};

// A scalar from YAML, kept both as text and as the CLIPS literal it substitutes to.
struct Scalar {
  std::string text;   // as written
  std::string clips;  // number as is, true/false -> TRUE/FALSE, else a CLIPS string
  bool is_number = false;
  double number = 0;
  SourcePos pos;
};

struct Param {
  std::string name;
  Scalar value;
  std::string doc;
};

// A param value given from outside the pack (config file, test case); typed like the default.
struct ParamOverride {
  std::string value;  // YAML scalar text
  SourcePos pos;      // where it was written, for messages
};

struct List {
  std::string name;
  std::vector<Scalar> items;
  SourcePos pos;
};

struct Macro {
  std::string name, text;
  SourcePos pos;
};

// A text written in CLIPS (when, gain, ...) and where its first character sits in YAML.
// Block scalars (| or >) keep one YAML line per text line, so CLIPS line N maps to
// first_line + N - 1; other scalars map everything to their start.
struct CodeText {
  std::string text;
  SourcePos pos;
  bool line_mapped = false;
  bool present() const { return !pos.file.empty() || !text.empty(); }
};

// An action parameter: a string (may hold {?var} templates), a number, or a list of strings.
struct ActionParam {
  std::string key;
  enum class Kind { string, number, list } kind = Kind::string;
  std::string text;
  std::vector<std::string> items;
};

struct Action {
  std::string kind;  // fusion_switch, aoe, onnx_rewrite, env_file, code_hint
  std::vector<ActionParam> params;
  SourcePos pos;
};

struct Rule {
  std::string id, title, severity = "auto", category;
  std::vector<std::string> tags;
  bool enabled = true;
  CodeText when;
  CodeText message;                   // template: {?var} / {?var:us|ms|pct|int|bytes}
  std::vector<std::string> subjects;  // variable names without '?'
  SourcePos subjects_pos;
  std::vector<std::pair<std::string, CodeText>> evidence;  // name -> variable or expression
  CodeText gain, share;
  std::optional<Action> action;
  std::string no_action;  // why the rule by nature proposes no action (instead of `action`)
  std::vector<std::string> references;
  std::string override_mode;   // "", "replace", "append"
  std::set<std::string> keys;  // keys written in YAML (for selective replace/append)
  SourcePos pos;
};

struct Pack {
  std::string name, version, engine, description, license, maturity = "incubating";
  std::vector<std::string> maintainers, applies_to, uses;
  std::vector<Param> params;
  std::vector<List> lists;
  std::vector<Macro> macros;
  std::vector<Rule> rules;
  std::filesystem::path dir, file;
  std::vector<std::filesystem::path> test_files;
  SourcePos pos;
  std::string override_mode;  // "", "merge", "replace": how it may redefine an earlier pack
  std::string source;         // builtin | community | system | user | project (set on load)
  bool trusted = false;       // from the built-in folder: may run in-process

  const Rule* rule(const std::string& id) const;
  Rule* rule(const std::string& id);
};

}  // namespace perfsage::engine
