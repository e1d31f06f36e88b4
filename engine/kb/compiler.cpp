#include "engine/kb/compiler.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <set>
#include <sstream>

#include "engine/clips/environment.h"
#include "engine/clips/pristine_environment.h"
#include "engine/clips/sandbox.h"
#include "engine/facts/registry.h"
#include "engine/kb/action_map.h"
#include "engine/kb/message_text.h"
#include "engine/kb/reader.h"
#include "engine/kb/sexpr.h"

namespace perfsage::engine {
namespace {

// Bounds on compiling one (untrusted) pack, on top of the reader's limits.
constexpr size_t kMaxExpandedBytes = 1 << 20;
constexpr std::chrono::seconds kMaxCompileTime{20};

constexpr const char* kRecommendationTemplate = R"clips((deftemplate recommendation
  (slot rule (type STRING))
  (slot gain (type NUMBER) (default 0.0))
  (slot share (type NUMBER) (default -1.0))
  (multislot subjects)
  (multislot evidence)
  (multislot vars))
(deftemplate list-item (slot list (type SYMBOL)) (slot value))
)clips";

// An error inside one piece of code text, at a line/column of that text.
struct CodeError {
  LoadCode code;
  int line, column;
  std::string text;
};

SourcePos map_pos(const CodeText& c, int line, int column) {
  SourcePos p = c.pos;
  if (c.line_mapped && line >= 1) {
    p.line = c.pos.line + line - 1;
    p.column = column >= 1 ? c.pos.column + column - 1 : c.pos.column;
  } else if (line == 1 && column >= 1) {
    p.column = c.pos.column + column - 1;
  }
  return p;
}

// The first "[ID] message" line of CLIPS error output, else its first non-empty line.
std::string clips_error_summary(const std::string& text) {
  std::istringstream in(text);
  std::string first;
  for (std::string l; std::getline(in, l);) {
    auto b = l.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    l = l.substr(b);
    if (l[0] == '[') return l;
    if (first.empty() && l != "ERROR:") first = l;
  }
  return first.empty() ? text : first;
}

class Compiler {
 public:
  Compiler(const Pack& pack, std::vector<LoadMessage>& out, const facts::Catalog& catalog)
      : pack_(pack), out_(out), catalog_(catalog) {}

  CompiledPack run(const std::map<std::string, ParamOverride>& overrides);

 private:
  void emit(LoadCode code, const SourcePos& p, const std::string& item, const std::string& text) {
    out_.push_back({code, p.file.empty() ? pack_.file.string() : p.file, p.line, p.column,
                    pack_.name, item, text});
    if (is_error(code) && first_error_.empty()) first_error_ = out_.back().str();
  }
  std::string substitute(const std::string& text, bool for_message, int depth = 0);
  void walk_ce(const sexpr::Node& n, std::set<std::string>& vars);
  void walk_pattern(const sexpr::Node& n, std::set<std::string>& vars);
  std::set<std::string> matched_types_;
  // False once the scratch environment holds something `constructs` does not (a rule CLIPS
  // loaded with a warning and that was then left out): it cannot serve as the pristine one.
  bool scratch_exact_ = true;
  LoadCode expr_code_ = LoadCode::err_compile_condition;  // code for errors inside expressions
  void walk_expr(const sexpr::Node& n, std::set<std::string>& vars);
  bool compile_rule(const Rule& r, clips::Environment& scratch, CompiledPack& out);
  void apply_override(const std::string& name, const ParamOverride& override);

  Pack pack_;
  std::vector<LoadMessage>& out_;
  const facts::Catalog& catalog_;
  std::string first_error_;
  std::set<std::string> used_names_;
};

std::string Compiler::substitute(const std::string& text, bool for_message, int depth) {
  std::string out;
  int line = 1, col = 1;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "${") != 0) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
      out += text[i++];
      continue;
    }
    size_t end = text.find('}', i);
    if (end == std::string::npos)
      throw CodeError{LoadCode::err_yaml_validate, line, col, "unclosed '${'"};
    std::string name = text.substr(i + 2, end - i - 2);
    used_names_.insert(name);
    std::string value;
    bool found = false;
    for (const auto& p : pack_.params)
      if (p.name == name) value = for_message ? p.value.text : p.value.clips, found = true;
    for (const auto& l : pack_.lists)
      if (l.name == name) {
        for (const auto& item : l.items)
          value += (value.empty() ? "" : (for_message ? ", " : " ")) +
                   (for_message ? item.text : item.clips);
        found = true;
      }
    for (const auto& m : pack_.macros)
      if (m.name == name) {
        if (depth > 8)
          throw CodeError{LoadCode::err_yaml_validate, line, col, "macros nest too deeply"};
        value = substitute(m.text, for_message, depth + 1);
        for (auto& c : value)
          if (c == '\n' || c == '\r') c = ' ';  // keep the line mapping of the enclosing text
        found = true;
      }
    if (!found)
      throw CodeError{LoadCode::err_yaml_validate, line, col,
                      "'${" + name + "}' names no param, list or macro of this pack"};
    out += value;
    if (out.size() > kMaxExpandedBytes)
      throw CodeError{LoadCode::err_yaml_validate, line, col,
                      "text expands to more than " + std::to_string(kMaxExpandedBytes) +
                          " bytes after params, lists and macros are substituted"};
    col += static_cast<int>(end + 1 - i);
    i = end + 1;
  }
  return out;
}

void Compiler::walk_expr(const sexpr::Node& n, std::set<std::string>& vars) {
  if (!n.is_list) {
    if (!n.is_string && n.atom == "=>")
      throw CodeError{LoadCode::err_compile_condition, n.line, n.column,
                      "'=>' is not allowed here"};
    if (!n.is_string) {
      auto v = sexpr::variable_of(n.atom);
      // ?x:slot reads a slot of a fact-query variable, bound by its query template.
      bool query_slot = n.atom.find(':') == n.atom.find_first_of("&|~:=") &&
                        n.atom.find(':') != std::string::npos;
      if (!v.empty() && !query_slot) vars.insert(v);
    }
    return;
  }
  if (n.kids.empty())
    throw CodeError{LoadCode::err_compile_condition, n.line, n.column, "empty expression '()'"};
  const auto& head = n.kids[0];
  if (!head.is_list && !head.is_string) {
    const std::string& f = head.atom;
    if (f == "assert" || f == "printout" || f == "halt")
      throw CodeError{expr_code_, head.line, head.column,
                      "function '" + f +
                          "' is not allowed in packs: it is reserved for the compiled rule "
                          "actions"};
    // Rebinding would change the values the message, subjects and evidence report (and lets
    // a loop grow a string without bound); every output is an expression of its own.
    if (f == "bind")
      throw CodeError{expr_code_, head.line, head.column,
                      "function 'bind' is not allowed in packs: write the value as an "
                      "expression where it is used"};
    if (!clips::sandbox_allows(f) && sexpr::variable_of(f).empty())
      throw CodeError{
          expr_code_, head.line, head.column,
          "function '" + f + "' is not allowed in packs: it " + clips::sandbox_reason(f)};
  }
  bool is_switch = !head.is_list && head.atom == "switch";
  for (size_t i = head.is_list ? 0 : 1; i < n.kids.size(); ++i) {
    const auto& k = n.kids[i];
    if (is_switch && k.is_list && !k.kids.empty() && !k.kids[0].is_list &&
        (k.kids[0].atom == "case" || k.kids[0].atom == "default")) {
      for (size_t j = 1; j < k.kids.size(); ++j) walk_expr(k.kids[j], vars);
    } else if (k.is_list && !k.kids.empty() && k.kids[0].is_list) {
      // Query templates such as ((?o op)) bind their variables for the query's own body
      // (where ?o:slot is used): nothing to check or collect.
      continue;
    } else {
      walk_expr(k, vars);
    }
  }
}

void Compiler::walk_pattern(const sexpr::Node& n, std::set<std::string>& vars) {
  const std::string& type = n.kids[0].atom;
  if (type == "list-item") {  // (list-item (list NAME) (value ?v)): one fact per list item
    for (size_t i = 1; i < n.kids.size(); ++i) {
      const auto& s = n.kids[i];
      if (!s.is_list || s.kids.size() < 2 || s.kids[0].is_list ||
          (s.kids[0].atom != "list" && s.kids[0].atom != "value"))
        throw CodeError{LoadCode::err_compile_condition, s.line, s.column,
                        "list-item patterns have the slots (list NAME) and (value ...)"};
      if (s.kids[0].atom == "list") {
        const std::string& name = s.kids[1].atom;
        bool found = false;
        for (const auto& l : pack_.lists) found |= l.name == name;
        if (!found)
          throw CodeError{LoadCode::err_compile_condition, s.kids[1].line, s.kids[1].column,
                          "no list named '" + name + "' in this pack"};
        used_names_.insert(name);
      }
      for (size_t j = 1; j < s.kids.size(); ++j) walk_expr(s.kids[j], vars);
    }
    return;
  }
  const auto* ft = catalog_.find(type);
  matched_types_.insert(type);
  if (!ft)
    throw CodeError{LoadCode::err_compile_condition, n.kids[0].line, n.kids[0].column,
                    "unknown fact type '" + type + "' (see docs/facts.md)"};
  bool listed = false;
  for (const auto& u : pack_.uses) listed |= u == type;
  if (!listed)
    throw CodeError{LoadCode::err_compile_condition, n.kids[0].line, n.kids[0].column,
                    "fact type '" + type + "' is matched but not listed in 'uses'"};
  for (size_t i = 1; i < n.kids.size(); ++i) {
    const auto& s = n.kids[i];
    if (!s.is_list || s.kids.empty() || s.kids[0].is_list || s.kids[0].is_string)
      throw CodeError{LoadCode::err_compile_condition, s.line, s.column,
                      "patterns of '" + type + "' name their slots: (" + type + " (slot value))"};
    if (!ft->slot(s.kids[0].atom))
      throw CodeError{LoadCode::err_compile_condition, s.kids[0].line, s.kids[0].column,
                      "fact type '" + type + "' has no slot '" + s.kids[0].atom + "'"};
    for (size_t j = 1; j < s.kids.size(); ++j) walk_expr(s.kids[j], vars);
  }
}

void Compiler::walk_ce(const sexpr::Node& n, std::set<std::string>& vars) {
  if (!n.is_list) {
    if (n.is_string || (sexpr::variable_of(n.atom).empty() && n.atom != "<-"))
      throw CodeError{LoadCode::err_compile_condition, n.line, n.column,
                      "expected a pattern, got '" + n.atom + "'"};
    vars.insert(sexpr::variable_of(n.atom));
    return;
  }
  if (n.kids.empty() || n.kids[0].is_list || n.kids[0].is_string)
    throw CodeError{LoadCode::err_compile_condition, n.line, n.column,
                    "a pattern starts with a fact type"};
  static const std::set<std::string> group = {"not", "and", "or", "exists", "forall", "logical"};
  const std::string& head = n.kids[0].atom;
  if (head == "test") {
    for (size_t i = 1; i < n.kids.size(); ++i) walk_expr(n.kids[i], vars);
  } else if (group.count(head)) {
    for (size_t i = 1; i < n.kids.size(); ++i) walk_ce(n.kids[i], vars);
  } else {
    walk_pattern(n, vars);
  }
}

bool Compiler::compile_rule(const Rule& r, clips::Environment& scratch, CompiledPack& out) {
  const std::string item = "rule " + r.id;
  if (!r.when.present()) {
    emit(LoadCode::err_yaml_validate, r.pos, item, "rule needs 'when'");
    return false;
  }
  if (!r.message.present()) {
    emit(LoadCode::err_yaml_validate, r.pos, item, "rule needs 'message'");
    return false;
  }
  // Each generated line remembers which YAML text it came from, to map CLIPS errors back.
  std::vector<std::pair<const CodeText*, int>> line_of;  // index = generated line - 1
  std::ostringstream gen;
  auto add_line = [&](const std::string& s, const CodeText* src, int src_line) {
    gen << s << "\n";
    line_of.emplace_back(src, src_line);
  };
  const CodeText* current = &r.when;
  std::set<std::string> vars;
  std::vector<std::pair<int, int>> ce_pos;  // line/column of each top-level CE in `when`
  matched_types_.clear();
  expr_code_ = LoadCode::err_compile_condition;
  try {
    std::string when = substitute(r.when.text, false);
    for (const auto& ce : sexpr::parse(when)) {
      walk_ce(ce, vars);
      if (ce.is_list) ce_pos.emplace_back(ce.line, ce.column);
    }
    add_line("(defrule " + r.id, &r.when, 1);
    std::istringstream lines(when);
    int k = 0;
    for (std::string l; std::getline(lines, l);) add_line("  " + l, &r.when, ++k);
    add_line("  =>", &r.when, k);
    vars.insert("gain");
    expr_code_ = LoadCode::err_compile_output;
    auto expr_line = [&](const CodeText& c, const std::string& bind) {
      current = &c;
      std::string text = substitute(c.text, false);
      auto forms = sexpr::parse(text);
      if (forms.size() != 1)
        throw CodeError{LoadCode::err_compile_output, 1, 1, "expected exactly one expression"};
      std::set<std::string> used;
      walk_expr(forms[0], used);
      for (const auto& v : used)
        if (!vars.count(v) && v.find(':') == std::string::npos)
          throw CodeError{LoadCode::err_compile_output, 1, 1,
                          "variable ?" + v + " is not bound in 'when'"};
      std::string flat = text;
      for (auto& ch : flat)
        if (ch == '\n' || ch == '\r') ch = ' ';
      add_line("  (bind ?" + bind + " " + flat + ")", &c, 1);
    };
    if (r.gain.present())
      expr_line(r.gain, "gain");
    else
      add_line("  (bind ?gain 0.0)", &r.when, 1);
    if (r.share.present())
      expr_line(r.share, "perfsage-share");
    else
      add_line("  (bind ?perfsage-share -1.0)", &r.when, 1);
    for (size_t i = 0; i < r.evidence.size(); ++i)
      expr_line(r.evidence[i].second, "perfsage-ev" + std::to_string(i));
    // An evidence key that names no variable of `when` becomes one, so titles and messages can
    // state a value computed on the right-hand side (e.g. on how many ranks a finding holds).
    for (size_t i = 0; i < r.evidence.size(); ++i) {
      const std::string& key = r.evidence[i].first;
      bool plain = !key.empty() && std::isalpha(static_cast<unsigned char>(key[0]));
      for (char ch : key) plain &= std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
      if (!plain || vars.count(key)) continue;
      add_line("  (bind ?" + key + " ?perfsage-ev" + std::to_string(i) + ")", &r.when, 1);
      vars.insert(key);
    }
    current = &r.message;
    // Variables carried to C++: message, action templates and subjects.
    CompiledRule compiled{r.id, {}, {}, "", substitute(r.message.text, true), r.action};
    std::vector<std::string> carried = template_variables(compiled.message);
    // The title is a template too: every {?var} in it must be bound like the message's.
    compiled.title = substitute(r.title.empty() ? r.id : r.title, true);
    for (const auto& v : template_variables(compiled.title)) {
      if (!vars.count(v)) {
        emit(LoadCode::err_compile_output, r.pos, item,
             "title: {?" + v + "} is not bound in 'when'");
        return false;
      }
      if (std::find(carried.begin(), carried.end(), v) == carried.end()) carried.push_back(v);
    }
    if (compiled.action) {
      auto why = check_action(*compiled.action);
      if (!why.empty()) {
        emit(LoadCode::err_compile_output, compiled.action->pos, item, "action: " + why);
        return false;
      }
    }
    if (compiled.action)
      for (auto& p : compiled.action->params) {
        p.text = substitute(p.text, true);
        for (auto& it : p.items) it = substitute(it, true);
        auto add = [&](const std::string& t) {
          for (auto& v : template_variables(t))
            if (std::find(carried.begin(), carried.end(), v) == carried.end()) carried.push_back(v);
        };
        add(p.text);
        for (const auto& it : p.items) add(it);
      }
    for (const auto& v : carried)
      if (!vars.count(v))
        throw CodeError{LoadCode::err_compile_output, 1, 1, "{?" + v + "} is not bound in 'when'"};
    for (const auto& s : r.subjects)
      if (!vars.count(s)) {
        emit(LoadCode::err_compile_output, r.subjects_pos, item,
             "subject ?" + s + " is not bound in 'when'");
        return false;
      }
    add_line(
        "  (assert (recommendation (rule \"" + r.id + "\") (gain ?gain) (share ?perfsage-share)",
        &r.when, 1);
    std::string subjects = "    (subjects";
    for (const auto& s : r.subjects) subjects += " ?" + s;
    add_line(subjects + ")", &r.when, 1);
    std::string evidence = "    (evidence";
    for (size_t i = 0; i < r.evidence.size(); ++i) {
      std::string key = r.evidence[i].first;
      for (auto& ch : key)
        if (ch == '"' || ch == '\\') ch = '_';
      evidence += " \"" + key + "\" ?perfsage-ev" + std::to_string(i);
    }
    add_line(evidence + ")", &r.when, 1);
    std::string carried_text = "    (vars";
    for (const auto& v : carried) carried_text += " \"" + v + "\" ?" + v;
    add_line(carried_text + "))))", &r.when, 1);  // vars, recommendation, assert, defrule
    compiled.vars = carried;
    compiled.fact_types.assign(matched_types_.begin(), matched_types_.end());
    out.rules.push_back(std::move(compiled));
  } catch (const sexpr::SyntaxError& e) {
    emit(LoadCode::err_compile_condition, map_pos(*current, e.line, e.column), item, e.what());
    return false;
  } catch (const CodeError& e) {
    emit(e.code, map_pos(*current, e.line, e.column), item, e.text);
    return false;
  }
  // CLIPS has the last word: load the rule into the scratch environment.
  std::string text = gen.str();
  scratch.clear_messages();
  auto errors = scratch.load(text);
  for (const auto& e : errors) {
    if (e.warning) continue;
    size_t idx = e.line >= 1 ? static_cast<size_t>(e.line - 1) : 0;
    SourcePos p = r.when.pos;
    if (idx < line_of.size()) p = map_pos(*line_of[idx].first, line_of[idx].second, 0);
    // Constraint errors are found after the whole rule is read; they name the CE instead.
    auto ce = e.text.find("CE #");
    if (ce != std::string::npos) {
      size_t n = std::strtoul(e.text.c_str() + ce + 4, nullptr, 10);
      if (n >= 1 && n <= ce_pos.size())
        p = map_pos(r.when, ce_pos[n - 1].first, ce_pos[n - 1].second);
    }
    emit(idx < line_of.size() && line_of[idx].first != &r.when ? LoadCode::err_compile_output
                                                               : LoadCode::err_compile_condition,
         p, item, "CLIPS: " + clips_error_summary(e.text));
  }
  if (!errors.empty()) {
    scratch_exact_ = false;
    out.rules.pop_back();
    return false;
  }
  out.constructs += text;
  return true;
}

// The kind of value a scalar holds, for checking an override against the param's default.
const char* scalar_kind(const Scalar& s) {
  if (s.is_number) return "number";
  if (s.clips == "TRUE" || s.clips == "FALSE") return "boolean";
  return "string";
}

void Compiler::apply_override(const std::string& name, const ParamOverride& override) {
  const std::string item = "param " + name;
  Param* target = nullptr;
  for (auto& p : pack_.params)
    if (p.name == name) target = &p;
  if (!target) {
    emit(LoadCode::unknown_param_override, override.pos, item,
         "override for a param the pack does not declare");
    return;
  }
  Scalar value;
  try {
    YAML::Node n = YAML::Load(override.value.empty() ? std::string("''") : override.value);
    if (!n.IsScalar()) {
      emit(LoadCode::err_yaml_validate, override.pos, item, "a param override must be a scalar");
      return;
    }
    value = scalar_from_yaml(n, override.pos.file);
  } catch (const YAML::Exception& e) {
    emit(LoadCode::err_yaml_validate, override.pos, item, "bad override value: " + e.msg);
    return;
  }
  const auto& declared = target->value.pos;
  if (std::string(scalar_kind(value)) != scalar_kind(target->value)) {
    emit(LoadCode::err_yaml_validate, override.pos, item,
         std::string("the override '") + override.value + "' is a " + scalar_kind(value) +
             ", but param '" + name + "' is a " + scalar_kind(target->value) + " (declared at " +
             declared.file + ":" + std::to_string(declared.line) + ")");
    return;
  }
  value.pos = override.pos.file.empty() ? declared : override.pos;
  target->value = value;
}

CompiledPack Compiler::run(const std::map<std::string, ParamOverride>& overrides) {
  CompiledPack out;
  std::string why;
  if (!pack_.engine.empty() && !version_satisfies(engine_version(), pack_.engine, why))
    emit(LoadCode::err_validate, pack_.pos, "", why);
  for (const auto& u : pack_.uses)
    if (!catalog_.find(u))
      emit(LoadCode::err_validate, pack_.pos, "", "'uses' names unknown fact type '" + u + "'");
  for (const auto& [name, override] : overrides) apply_override(name, override);
  std::set<std::string> names;
  auto unique = [&](const std::string& n, const SourcePos& p, const char* kind) {
    if (!names.insert(n).second)
      emit(LoadCode::err_validate, p, std::string(kind) + " " + n,
           "name already used by another param, list or macro");
  };
  for (const auto& p : pack_.params) unique(p.name, p.value.pos, "param");
  for (const auto& l : pack_.lists) unique(l.name, l.pos, "list");
  for (const auto& m : pack_.macros) unique(m.name, m.pos, "macro");
  std::set<std::string> ids;
  for (const auto& r : pack_.rules)
    if (!ids.insert(r.id).second)
      emit(LoadCode::err_validate, r.pos, "rule " + r.id, "duplicate rule id");
  if (!first_error_.empty()) {
    out.pack = pack_;
    out.error = first_error_;
    return out;
  }

  auto scratch_env = std::make_unique<clips::Environment>();
  clips::Environment& scratch = *scratch_env;
  std::string templates = recommendation_template();
  for (const auto& u : pack_.uses) {
    templates += facts::deftemplate(*catalog_.find(u));
    out.types.push_back(*catalog_.find(u));
  }
  auto terrs = scratch.load(templates);
  if (!terrs.empty())
    emit(LoadCode::err_validate, pack_.pos, "",
         "internal: templates did not load: " + terrs[0].text);
  out.constructs = templates;
  // Lists are also facts, so rules can bind each item: (list-item (list NAME) (value ?v)).
  if (!pack_.lists.empty()) {
    std::string deffacts = "(deffacts perfsage-lists";
    for (const auto& l : pack_.lists)
      for (const auto& item : l.items)
        deffacts += "\n  (list-item (list " + l.name + ") (value " + item.clips + "))";
    deffacts += ")\n";
    auto lerrs = scratch.load(deffacts);
    if (!lerrs.empty())
      emit(LoadCode::err_yaml_validate, pack_.lists[0].pos, "lists",
           "lists did not compile: " + lerrs[0].text);
    out.constructs += deffacts;
  }
  const auto deadline = std::chrono::steady_clock::now() + kMaxCompileTime;
  for (const auto& r : pack_.rules) {
    if (!r.enabled) continue;
    if (std::chrono::steady_clock::now() > deadline) {
      emit(LoadCode::err_validate, r.pos, "rule " + r.id,
           "the pack took longer than " + std::to_string(kMaxCompileTime.count()) +
               " s to compile; rules from here on were not compiled");
      break;
    }
    compile_rule(r, scratch, out);
  }
  for (const auto& p : pack_.params)
    if (!used_names_.count(p.name))
      emit(LoadCode::unused_param, p.value.pos, "param " + p.name, "param is never used");
  for (const auto& l : pack_.lists)
    if (!used_names_.count(l.name))
      emit(LoadCode::unused_list, l.pos, "list " + l.name, "list is never used");
  for (const auto& m : pack_.macros)
    if (!used_names_.count(m.name))
      emit(LoadCode::unused_macro, m.pos, "macro " + m.name, "macro is never used");
  out.pack = pack_;
  out.valid = first_error_.empty();
  out.error = first_error_;
  if (out.valid && scratch_exact_) {
    scratch.clear_messages();
    out.pristine = std::make_shared<clips::PristineEnvironment>(std::move(scratch_env));
  }
  return out;
}

}  // namespace

const char* recommendation_template() {
  return kRecommendationTemplate;
}

const facts::FactType* CompiledPack::fact_type(std::string_view name) const {
  for (const auto& t : types)
    if (t.name == name) return &t;
  return nullptr;
}

const CompiledRule* CompiledPack::rule(const std::string& id) const {
  for (const auto& r : rules)
    if (r.id == id) return &r;
  return nullptr;
}

CompiledPack compile_pack(const Pack& pack, std::vector<LoadMessage>& messages,
                          const facts::Catalog& catalog,
                          const std::map<std::string, ParamOverride>& param_overrides) {
  return Compiler(pack, messages, catalog).run(param_overrides);
}

}  // namespace perfsage::engine
