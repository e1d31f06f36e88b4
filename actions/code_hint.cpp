#include "actions/code_hint.h"

#include <sstream>

#include "actions/kind.h"

namespace perfsage::actions {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

std::string unified_diff_problem(const std::string& diff) {
  auto lines = lines_of(diff);
  if (lines.size() < 3) return "a unified diff needs ---, +++ and @@ lines";
  if (lines[0].rfind("--- ", 0) != 0) return "line 1 must start with '--- '";
  if (lines[1].rfind("+++ ", 0) != 0) return "line 2 must start with '+++ '";
  if (lines[2].rfind("@@", 0) != 0) return "line 3 must start a hunk with '@@'";
  for (size_t i = 3; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (l.empty() || l[0] == ' ' || l[0] == '+' || l[0] == '-' || l.rfind("@@", 0) == 0 ||
        l[0] == '\\') {
      continue;
    }
    return "line " + std::to_string(i + 1) + " is not a context, '+', '-' or '@@' line";
  }
  return "";
}

std::string render_code_hints(const std::vector<CodeHint>& hints) {
  std::string out =
      "# Code changes suggested by perfsage. Shown, never applied: edit your code by hand, then\n"
      "# run the job again; the next analysis judges whether the change helped.\n";
  for (const auto& h : hints) {
    out += "\n# finding " + h.finding + (h.title.empty() ? "" : ": " + h.title) + "\n";
    if (!h.file.empty()) out += "# in " + h.file + "\n";
    if (!h.diff.empty() && unified_diff_problem(h.diff).empty()) {
      out += h.diff;
      if (out.back() != '\n') out += '\n';
      continue;
    }
    for (const auto& line : lines_of(h.hint)) out += "#   " + line + "\n";
    if (!h.diff.empty()) {
      for (const auto& line : lines_of(h.diff)) out += "#   " + line + "\n";
    }
  }
  return out;
}

}  // namespace perfsage::actions

namespace perfsage::actions {
namespace v1 = perfsage::v1;
namespace {

class CodeHintKind final : public ActionKind {
 public:
  std::string_view name() const override { return "code_hint"; }

  Rendered render(store::Database&, const v1::PlannedAction& plan, bool,
                  const std::filesystem::path&) const override {
    Rendered r;
    std::vector<CodeHint> hints;
    for (const auto& s : plan.steps()) {
      const auto& c = s.action().code_hint();
      if (!c.diff().empty()) {
        if (auto problem = unified_diff_problem(c.diff()); !problem.empty()) {
          r.notes.push_back("finding " + s.finding() + ": the suggested diff is shown as text (" +
                            problem + ")");
        }
      }
      hints.push_back({c.hint(), c.diff(), c.file(), s.finding(), s.title()});
    }
    r.files.push_back({"perfsage_code_hints.txt", "code_hints", render_code_hints(hints), {}});
    r.usage.push_back("code hints are shown, never applied: edit your code as suggested");
    return r;
  }
};

}  // namespace

const ActionKind& code_hint_kind() {
  static const CodeHintKind kind;
  return kind;
}

}  // namespace perfsage::actions
