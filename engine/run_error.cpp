#include "engine/run_error.h"

#include <regex>
#include <vector>

namespace perfsage::engine {
namespace {

struct Entry {
  std::string code, text;  // "PRNTUTIL7", "Attempt to divide by zero in / function"
};

// CLIPS's lines joined by single spaces.
std::string one_line(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::vector<Entry> entries(const std::string& text) {
  static const std::regex code(R"(\[([A-Z]+[0-9]+)\]\s*)");
  std::vector<std::pair<size_t, size_t>> at;  // each code's start and its text's start
  std::vector<std::string> codes;
  for (std::sregex_iterator it(text.begin(), text.end(), code), end; it != end; ++it) {
    at.emplace_back(static_cast<size_t>(it->position()),
                    static_cast<size_t>(it->position() + it->length()));
    codes.push_back((*it)[1].str());
  }
  std::vector<Entry> out;
  for (size_t i = 0; i < at.size(); ++i) {
    size_t stop = i + 1 < at.size() ? at[i + 1].first : text.size();
    std::string t = text.substr(at[i].second, stop - at[i].second);
    while (!t.empty() && (t.back() == ' ' || t.back() == '.')) t.pop_back();
    out.push_back({codes[i], std::move(t)});
  }
  return out;
}

// Where the run stopped rather than why: the rule's actions, the join network.
bool is_context(const Entry& e) {
  return e.code.rfind("PRCCODE", 0) == 0 || e.code.rfind("DRIVE", 0) == 0;
}

std::string first_match(const std::string& text, const std::regex& re) {
  std::smatch m;
  return std::regex_search(text, m, re) ? m[1].str() : std::string();
}

bool calls(const CodeText& code, const std::string& function) {
  if (function.empty() || !code.present()) return false;
  const std::string& t = code.text;
  for (size_t at = t.find("(" + function); at != std::string::npos;
       at = t.find("(" + function, at + 1)) {
    size_t after = at + 1 + function.size();
    if (after >= t.size() || t[after] == ' ' || t[after] == '\n' || t[after] == ')') return true;
  }
  return false;
}

std::string position(const Pack& pack, const SourcePos& pos) {
  std::string file = pos.file.empty() ? pack.file.string() : pos.file;
  if (pos.line <= 0) return file;
  return file + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

}  // namespace

std::string describe_run_error(const Pack& pack, const std::string& clips_text) {
  const std::string text = one_line(clips_text);
  const auto list = entries(text);
  const Entry* main = nullptr;
  for (const auto& e : list) {
    if (!is_context(e) && !e.text.empty()) {
      main = &e;
      break;
    }
  }
  if (!main && !list.empty()) main = &list.front();

  static const std::regex rule_re(R"((?:defrule|in rule) ([^\s.]+))");
  static const std::regex function_re(R"((?:in (\S+) function|Function (\S+) expected))");
  static const std::regex slot_re(R"(allowed types for slot (\w+))");
  static const std::regex value_re(R"(Slot value (.*) found in fact)");
  std::smatch fm;
  std::string function;
  if (main && std::regex_search(main->text, fm, function_re))
    function = fm[1].matched ? fm[1].str() : fm[2].str();
  const std::string slot = main ? first_match(main->text, slot_re) : std::string();

  std::string what;
  if (!main) {
    what = text.empty() ? "CLIPS stopped with an evaluation error and said nothing more" : text;
  } else if (main->text.find("divide by zero") != std::string::npos) {
    what = "divide by zero in (" + function + " ...)";
  } else if (!slot.empty()) {
    std::string value = first_match(main->text, value_re);
    if (value.empty()) value = "a value";
    what = "evaluated to " + value + ", which is not a number";
  } else {
    what = main->text;
  }
  if (main) what += " [" + main->code + "]";

  const Rule* rule = pack.rule(first_match(text, rule_re));
  if (!rule) return position(pack, pack.pos) + ": " + what;
  // The rule's key that failed, and its line.
  std::string key;
  const CodeText* code = nullptr;
  if (slot == "gain" || slot == "share") {
    key = slot;
    code = slot == "gain" ? &rule->gain : &rule->share;
  } else if (text.find("join network") != std::string::npos) {
    key = "when";
    code = &rule->when;
  } else if (calls(rule->gain, function)) {
    key = "gain";
    code = &rule->gain;
  } else if (calls(rule->share, function)) {
    key = "share";
    code = &rule->share;
  } else {
    for (const auto& [name, ev] : rule->evidence) {
      if (!calls(ev, function)) continue;
      key = "evidence " + name;
      code = &ev;
      break;
    }
  }
  const SourcePos& pos = code && code->pos.line > 0 ? code->pos : rule->pos;
  return position(pack, pos) + ": rule " + rule->id + (key.empty() ? "" : ", " + key) + ": " + what;
}

}  // namespace perfsage::engine
