#include "engine/kb/reader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "engine/kb/action_map.h"

namespace perfsage::engine {
namespace fs = std::filesystem;

const Rule* Pack::rule(const std::string& id) const {
  for (const auto& r : rules)
    if (r.id == id) return &r;
  return nullptr;
}
Rule* Pack::rule(const std::string& id) {
  for (auto& r : rules)
    if (r.id == id) return &r;
  return nullptr;
}

namespace {

// Thrown inside the reader for one bad node; caught per item so one error does not hide others.
struct Invalid {
  LoadMessage msg;
};

class Reader {
 public:
  Reader(std::string file, const std::string& text, std::vector<LoadMessage>& out)
      : file_(std::move(file)), out_(out) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines_.push_back(line);
  }

  SourcePos pos(const YAML::Node& n) const {
    auto m = n.Mark();
    if (m.is_null()) return {file_, 0, 0};
    return {file_, m.line + 1, m.column + 1};
  }

  [[noreturn]] void fail(const YAML::Node& n, const std::string& item, const std::string& text,
                         LoadCode code = LoadCode::err_yaml_validate) const {
    auto p = pos(n);
    throw Invalid{{code, file_, p.line, p.column, pack_, item, text}};
  }
  void warn(const YAML::Node& n, const std::string& item, LoadCode code, const std::string& text) {
    auto p = pos(n);
    out_.push_back({code, file_, p.line, p.column, pack_, item, text});
  }
  void error(const Invalid& e) { out_.push_back(e.msg); }

  void check_keys(const YAML::Node& map, const std::string& item, std::set<std::string> known) {
    for (const auto& kv : map) {
      auto key = kv.first.as<std::string>();
      if (!known.count(key))
        warn(kv.first, item, LoadCode::unknown_key, "unknown key '" + key + "' ignored");
    }
  }

  std::string str(const YAML::Node& n, const std::string& item, const std::string& what) const {
    if (!n.IsScalar()) fail(n, item, what + " must be a scalar");
    return n.as<std::string>();
  }
  std::vector<std::string> strs(const YAML::Node& n, const std::string& item,
                                const std::string& what) const {
    std::vector<std::string> out;
    if (n.IsScalar()) return {n.as<std::string>()};
    if (!n.IsSequence()) fail(n, item, what + " must be a list of strings");
    for (const auto& e : n) out.push_back(str(e, item, what));
    return out;
  }

  // Code text with the position of its first character, mapped per line for block scalars.
  CodeText code(const YAML::Node& n, const std::string& item, const std::string& what) const {
    CodeText c;
    c.text = str(n, item, what);
    c.pos = pos(n);
    auto m = n.Mark();
    if (!m.is_null() && m.line < static_cast<int>(lines_.size())) {
      const std::string& l = lines_[m.line];
      char ind = m.column < static_cast<int>(l.size()) ? l[m.column] : 0;
      if (ind == '|' || ind == '>') {
        // Content starts on the next non-empty line, at its indentation.
        for (size_t k = m.line + 1; k < lines_.size(); ++k) {
          auto first = lines_[k].find_first_not_of(' ');
          if (first == std::string::npos) continue;
          c.pos.line = static_cast<int>(k) + 1;
          c.pos.column = static_cast<int>(first) + 1;
          break;
        }
        c.line_mapped = ind == '|';
      } else if (ind == '"' || ind == '\'') {
        c.pos.column += 1;
      }
    }
    return c;
  }

  Pack read(const YAML::Node& root);

 private:
  Rule read_rule(const YAML::Node& n);
  Action read_action(const YAML::Node& n, const std::string& item);

  std::string file_;
  std::string pack_;
  std::vector<std::string> lines_;
  std::vector<LoadMessage>& out_;
};

Action Reader::read_action(const YAML::Node& n, const std::string& item) {
  if (!n.IsMap()) fail(n, item, "action must be a map with at least 'kind'");
  Action a;
  a.pos = pos(n);
  if (!n["kind"]) fail(n, item, "action needs 'kind'");
  a.kind = str(n["kind"], item, "action kind");
  // The kinds are perfsage.v1.Action's `detail` fields (engine/kb/action_map.h).
  const auto& kinds = action_kind_names();
  if (std::find(kinds.begin(), kinds.end(), a.kind) == kinds.end()) {
    std::string expected;
    for (size_t i = 0; i < kinds.size(); ++i)
      expected += (i == 0 ? "" : i + 1 == kinds.size() ? " or " : ", ") + kinds[i];
    fail(n["kind"], item, "unknown action kind '" + a.kind + "' (expected " + expected + ")");
  }
  for (const auto& kv : n) {
    auto key = kv.first.as<std::string>();
    if (key == "kind") continue;
    ActionParam p;
    p.key = key;
    if (kv.second.IsSequence()) {
      p.kind = ActionParam::Kind::list;
      p.items = strs(kv.second, item, "action parameter '" + key + "'");
    } else if (kv.second.IsScalar()) {
      Scalar s = scalar_from_yaml(kv.second, file_);
      p.kind = s.is_number ? ActionParam::Kind::number : ActionParam::Kind::string;
      p.text = s.text;
    } else {
      fail(kv.second, item, "action parameter '" + key + "' must be a scalar or a list");
    }
    a.params.push_back(std::move(p));
  }
  return a;
}

Rule Reader::read_rule(const YAML::Node& n) {
  if (!n.IsMap()) fail(n, "", "each rule must be a map");
  Rule r;
  r.pos = pos(n);
  if (!n["id"]) fail(n, "", "rule without 'id'");
  r.id = str(n["id"], "", "id");
  static const std::regex id_re("[A-Za-z][A-Za-z0-9_.-]*");
  if (!std::regex_match(r.id, id_re))
    fail(n["id"], "", "rule id '" + r.id + "' must match [A-Za-z][A-Za-z0-9_.-]*");
  std::string item = "rule " + r.id;
  check_keys(
      n, item,
      {"id", "title", "severity", "category", "tags", "enabled", "when", "message", "subjects",
       "evidence", "gain", "share", "action", "no_action", "references", "override"});
  for (const auto& kv : n) r.keys.insert(kv.first.as<std::string>());
  if (n["title"]) r.title = str(n["title"], item, "title");
  if (n["severity"]) {
    r.severity = str(n["severity"], item, "severity");
    static const std::set<std::string> sev = {"critical", "high", "medium", "low", "info", "auto"};
    if (!sev.count(r.severity))
      fail(n["severity"], item,
           "severity '" + r.severity + "' is not one of critical, high, medium, low, info, auto");
  }
  if (n["category"]) r.category = str(n["category"], item, "category");
  if (n["tags"]) r.tags = strs(n["tags"], item, "tags");
  if (n["enabled"]) {
    if (!n["enabled"].IsScalar()) fail(n["enabled"], item, "enabled must be true or false");
    try {
      r.enabled = n["enabled"].as<bool>();
    } catch (const YAML::Exception&) {
      fail(n["enabled"], item, "enabled must be true or false");
    }
  }
  if (n["when"]) r.when = code(n["when"], item, "when");
  if (n["message"]) r.message = code(n["message"], item, "message");
  if (n["subjects"]) {
    r.subjects_pos = pos(n["subjects"]);
    // Variable names, with or without '?' ("[?x]" is not valid YAML flow syntax).
    for (auto s : strs(n["subjects"], item, "subjects")) {
      if (!s.empty() && s[0] == '?') s = s.substr(1);
      if (s.empty() || s.find_first_of(" ()&|~:") != std::string::npos)
        fail(n["subjects"], item, "subjects are variable names bound in 'when', e.g. [name]");
      r.subjects.push_back(s);
    }
  }
  if (n["evidence"]) {
    if (!n["evidence"].IsMap())
      fail(n["evidence"], item, "evidence must be a map name -> expression");
    for (const auto& kv : n["evidence"])
      r.evidence.emplace_back(kv.first.as<std::string>(), code(kv.second, item, "evidence"));
  }
  if (n["gain"]) r.gain = code(n["gain"], item, "gain");
  if (n["share"]) r.share = code(n["share"], item, "share");
  if (n["action"]) r.action = read_action(n["action"], item);
  if (n["no_action"]) {
    if (n["action"])
      fail(n["no_action"], item, "a rule has either 'action' or 'no_action', not both");
    r.no_action = str(n["no_action"], item, "no_action");
    if (r.no_action.find_first_not_of(" \t\n") == std::string::npos)
      fail(n["no_action"], item, "no_action must say why the rule proposes no action");
  }
  if (n["references"]) r.references = strs(n["references"], item, "references");
  if (n["override"]) {
    r.override_mode = str(n["override"], item, "override");
    if (r.override_mode != "replace" && r.override_mode != "append")
      fail(n["override"], item, "override must be 'replace' or 'append'");
  }
  return r;
}

Pack Reader::read(const YAML::Node& root) {
  Pack p;
  p.pos = {file_, 1, 1};
  if (!root.IsMap()) fail(root, "", "pack.yaml must be a map", LoadCode::err_yaml_validate);
  if (root["name"]) pack_ = p.name = str(root["name"], "", "name");
  check_keys(root, "",
             {"name", "version", "engine", "description", "license", "maintainers", "maturity",
              "applies_to", "uses", "params", "lists", "macros", "rules", "override"});
  static const std::regex name_re("[a-z][a-z0-9_-]*");
  if (!root["name"] || !std::regex_match(p.name, name_re))
    fail(root["name"] ? root["name"] : root, "", "pack needs a 'name' matching [a-z][a-z0-9_-]*");
  if (!root["version"]) fail(root, "", "pack needs a 'version' (semver x.y.z)");
  p.version = str(root["version"], "", "version");
  if (!is_semver(p.version))
    fail(root["version"], "", "version '" + p.version + "' is not semver (x.y.z)",
         LoadCode::err_validate);
  p.engine = root["engine"] ? str(root["engine"], "", "engine") : "";
  if (root["description"]) p.description = str(root["description"], "", "description");
  if (root["license"]) p.license = str(root["license"], "", "license");
  if (root["maintainers"]) p.maintainers = strs(root["maintainers"], "", "maintainers");
  if (root["maturity"]) {
    p.maturity = str(root["maturity"], "", "maturity");
    static const std::set<std::string> m = {"stable", "incubating", "sandbox", "deprecated"};
    if (!m.count(p.maturity))
      fail(root["maturity"], "", "maturity must be stable, incubating, sandbox or deprecated");
    if (p.maturity == "deprecated")
      warn(root["maturity"], "", LoadCode::deprecated_pack, "pack is deprecated");
  }
  if (root["applies_to"]) {
    p.applies_to = strs(root["applies_to"], "", "applies_to");
    for (const auto& a : p.applies_to)
      if (a != "ascend" && a != "cuda" && a != "cpu")
        fail(root["applies_to"], "", "applies_to entries are ascend, cuda or cpu, not '" + a + "'");
  }
  if (root["uses"]) p.uses = strs(root["uses"], "", "uses");
  if (root["override"]) {
    p.override_mode = str(root["override"], "", "override");
    if (p.override_mode != "merge" && p.override_mode != "replace")
      fail(root["override"], "", "pack-level override must be 'merge' or 'replace'");
  }
  if (auto params = root["params"]) {
    if (!params.IsMap()) fail(params, "", "params must be a map name -> value");
    for (const auto& kv : params) {
      Param prm;
      prm.name = kv.first.as<std::string>();
      const YAML::Node& v = kv.second;
      if (v.IsMap()) {  // long form: {default: 20, doc: "..."}
        check_keys(v, "param " + prm.name, {"default", "doc"});
        if (!v["default"] || !v["default"].IsScalar())
          fail(v, "param " + prm.name, "param needs a scalar 'default'");
        prm.value = scalar_from_yaml(v["default"], file_);
        if (v["doc"]) prm.doc = str(v["doc"], "param " + prm.name, "doc");
      } else if (v.IsScalar()) {
        prm.value = scalar_from_yaml(v, file_);
      } else {
        fail(v, "param " + prm.name, "param value must be a scalar or {default, doc}");
      }
      p.params.push_back(std::move(prm));
    }
  }
  if (auto lists = root["lists"]) {
    if (!lists.IsMap()) fail(lists, "", "lists must be a map name -> [items]");
    size_t items = 0;
    for (const auto& kv : lists) {
      if (kv.second.IsSequence() && (items += kv.second.size()) > kMaxListItems)
        fail(kv.second, "", "lists hold more than " + std::to_string(kMaxListItems) + " items");
      List l;
      l.name = kv.first.as<std::string>();
      l.pos = pos(kv.first);
      if (!kv.second.IsSequence()) fail(kv.second, "list " + l.name, "a list must be a sequence");
      for (const auto& e : kv.second) {
        if (!e.IsScalar()) fail(e, "list " + l.name, "list items must be scalars");
        l.items.push_back(scalar_from_yaml(e, file_));
      }
      p.lists.push_back(std::move(l));
    }
  }
  if (auto macros = root["macros"]) {
    if (!macros.IsMap()) fail(macros, "", "macros must be a map name -> CLIPS text");
    for (const auto& kv : macros) {
      Macro m;
      m.name = kv.first.as<std::string>();
      m.pos = pos(kv.second);
      m.text = str(kv.second, "macro " + m.name, "macro");
      p.macros.push_back(std::move(m));
    }
  }
  if (auto rules = root["rules"]) {
    if (!rules.IsSequence()) fail(rules, "", "rules must be a list");
    if (rules.size() > kMaxRules)
      fail(rules, "",
           "a pack holds at most " + std::to_string(kMaxRules) + " rules, this one " +
               std::to_string(rules.size()));
    for (const auto& rn : rules) {
      try {
        p.rules.push_back(read_rule(rn));
      } catch (const Invalid& e) {
        error(e);  // keep reading the other rules to report all problems at once
      }
    }
  }
  return p;
}

// yaml-cpp reports an unclosed '[' or '{' where it gave up looking for the close, often the
// next line; the author needs the opening bracket, which this finds by walking the text.
LoadMessage yaml_parse_error(const std::string& text, const std::string& file,
                             const YAML::Exception& e) {
  LoadMessage m{LoadCode::err_yaml_parse, file, e.mark.line + 1, e.mark.column + 1, "", "", e.msg};
  if (e.msg.find("flow not found") == std::string::npos || e.mark.is_null()) return m;
  struct Open {
    int line, column;
    char bracket;
  };
  std::vector<Open> open;  // unclosed brackets, innermost last
  int line = 1, col = 1;
  char quote = 0;
  for (size_t i = 0; i < text.size() && line <= e.mark.line + 1; ++i) {
    char c = text[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '[' || c == '{') {
      open.push_back({line, col, c});
    } else if ((c == ']' || c == '}') && !open.empty()) {
      open.pop_back();
    }
    if (c == '\n') {
      ++line;
      col = 1;
      quote = 0;  // YAML quotes may span lines, but an unclosed one is its own error
    } else {
      ++col;
    }
  }
  // The innermost unclosed bracket of the kind the parser was looking for.
  const char kind = e.msg.find("map flow") != std::string::npos ? '{' : '[';
  while (!open.empty() && open.back().bracket != kind) open.pop_back();
  if (open.empty()) return m;
  m.line = open.back().line;
  m.column = open.back().column;
  m.text = std::string("this '") + kind + "' is never closed (" + e.msg + ")";
  return m;
}

}  // namespace

Scalar scalar_from_yaml(const YAML::Node& node, const std::string& file) {
  Scalar s;
  s.text = node.as<std::string>();
  auto m = node.Mark();
  s.pos = {file, m.is_null() ? 0 : m.line + 1, m.is_null() ? 0 : m.column + 1};
  bool quoted = node.Tag() == "!";
  static const std::regex num_re("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");
  if (!quoted && std::regex_match(s.text, num_re)) {
    s.is_number = true;
    errno = 0;
    s.number = std::strtod(s.text.c_str(), nullptr);
    // CLIPS reads 1e999999 as inf and its arithmetic then traps or misleads: refuse it here.
    if (errno == ERANGE && std::isinf(s.number))
      throw YAML::ParserException(node.Mark(), "number '" + s.text + "' is out of range");
    s.clips = s.text[0] == '+' ? s.text.substr(1) : s.text;
    return s;
  }
  if (!quoted && (s.text == "true" || s.text == "false")) {
    s.clips = s.text == "true" ? "TRUE" : "FALSE";
    return s;
  }
  s.clips = "\"";
  for (char c : s.text) {
    if (c == '"' || c == '\\') s.clips += '\\';
    s.clips += c;
  }
  s.clips += "\"";
  return s;
}

std::optional<Pack> read_pack_text(const std::string& yaml_text, const std::string& file_name,
                                   std::vector<LoadMessage>& messages) {
  if (yaml_text.size() > kMaxPackFileBytes) {
    messages.push_back({LoadCode::err_file_read, file_name, 0, 0, "", "",
                        "pack text is " + std::to_string(yaml_text.size()) +
                            " bytes; the limit is " + std::to_string(kMaxPackFileBytes)});
    return std::nullopt;
  }
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    messages.push_back(yaml_parse_error(yaml_text, file_name, e));
    return std::nullopt;
  }
  size_t before = messages.size();
  Reader reader(file_name, yaml_text, messages);
  try {
    Pack p = reader.read(root);
    p.file = file_name;
    for (size_t i = before; i < messages.size(); ++i)
      if (messages[i].error()) return std::nullopt;
    return p;
  } catch (const Invalid& e) {
    messages.push_back(e.msg);
  } catch (const YAML::Exception& e) {
    messages.push_back({LoadCode::err_yaml_validate, file_name, e.mark.line + 1, e.mark.column + 1,
                        "", "", e.msg});
  }
  return std::nullopt;
}

std::optional<Pack> read_pack(const fs::path& dir, std::vector<LoadMessage>& messages) {
  fs::path file = dir / "pack.yaml";
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    messages.push_back(
        {LoadCode::err_file_read, file.string(), 0, 0, "", "", "cannot read pack file"});
    return std::nullopt;
  }
  std::error_code size_ec;
  auto size = fs::file_size(file, size_ec);
  if (size_ec || size > kMaxPackFileBytes) {
    messages.push_back({LoadCode::err_file_read, file.string(), 0, 0, "", "",
                        size_ec ? "cannot read pack file: " + size_ec.message()
                                : "pack file is " + std::to_string(size) + " bytes; the limit is " +
                                      std::to_string(kMaxPackFileBytes)});
    return std::nullopt;
  }
  std::stringstream buf;
  buf << in.rdbuf();
  auto pack = read_pack_text(buf.str(), file.string(), messages);
  if (!pack) return pack;
  pack->dir = dir;
  pack->file = file;
  std::error_code ec;
  if (fs::is_directory(dir / "tests", ec)) {
    for (const auto& e : fs::directory_iterator(dir / "tests", ec)) {
      auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml"))
        pack->test_files.push_back(e.path());
    }
    std::sort(pack->test_files.begin(), pack->test_files.end());
  }
  return pack;
}

const char* engine_version() {
  return PERFSAGE_VERSION;
}

bool is_semver(const std::string& v) {
  static const std::regex re(
      "(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?");
  return std::regex_match(v, re);
}

namespace {
// Saturates instead of throwing: a version part of 30 digits compares as very large.
long version_part(const std::string& digits) {
  long v = 0;
  for (char c : digits) v = v > 100000000L ? v : v * 10 + (c - '0');
  return v;
}

std::vector<long> parse_version(const std::string& v) {
  std::vector<long> parts;
  std::string cur;
  for (char c : v) {
    if (c == '.') {
      parts.push_back(version_part(cur));
      cur.clear();
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      cur += c;
    } else {
      break;  // pre-release / build suffix: ignored for range checks
    }
  }
  parts.push_back(version_part(cur));
  while (parts.size() < 3) parts.push_back(0);
  return parts;
}
}  // namespace

bool version_satisfies(const std::string& version, const std::string& range, std::string& why) {
  static const std::regex term("\\s*(>=|<=|>|<|==|=|\\^|~)?\\s*([0-9]+(\\.[0-9]+){0,2})\\s*");
  auto have = parse_version(version);
  std::stringstream ss(range);
  for (std::string part; std::getline(ss, part, ',');) {
    if (part.find_first_not_of(" \t") == std::string::npos) continue;
    std::smatch m;
    if (!std::regex_match(part, m, term)) {
      why = "cannot parse engine range '" + range + "' (expected e.g. \">=0.1, <2\")";
      return false;
    }
    std::string op = m[1].matched ? m[1].str() : "=";
    auto want = parse_version(m[2].str());
    int cmp = have < want ? -1 : (have > want ? 1 : 0);
    bool ok = op == ">="   ? cmp >= 0
              : op == ">"  ? cmp > 0
              : op == "<=" ? cmp <= 0
              : op == "<"  ? cmp < 0
              : op == "^" ? (cmp >= 0 && have[0] == want[0] && (want[0] != 0 || have[1] == want[1]))
              : op == "~" ? (cmp >= 0 && have[0] == want[0] && have[1] == want[1])
                          : cmp == 0;
    if (!ok) {
      why = "requires engine " + range + ", this engine is " + version;
      return false;
    }
  }
  return true;
}

}  // namespace perfsage::engine
