#include "actions/env_file.h"

#include <map>

#include "actions/kind.h"

namespace perfsage::actions {
namespace {

bool shell_name(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

// Single-quoted unless every character is plainly safe in a shell word.
std::string shell_quote(const std::string& v) {
  bool plain = !v.empty();
  for (char c : v) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              std::string_view("_-.,:/=+@%").find(c) != std::string_view::npos;
    plain = plain && ok;
  }
  if (plain) return v;
  std::string out = "'";
  for (char c : v) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// A comment stays on its line.
std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) out += (c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

}  // namespace

EnvPlan plan_env_file(const std::vector<EnvRequest>& requests) {
  EnvPlan plan;
  std::map<std::string, size_t> index;  // name -> line
  for (const auto& r : requests) {
    bool used = false;
    auto add = [&](const std::string& name, std::optional<std::string> value) {
      if (!shell_name(name)) {
        plan.notes.push_back("finding " + r.finding + ": \"" + name +
                             "\" is not an environment variable name; left out");
        return;
      }
      if (auto it = index.find(name); it != index.end()) {
        const auto& have = plan.lines[it->second];
        if (have.value != value) {
          plan.notes.push_back("finding " + r.finding + " asks for " + name +
                               (value ? "=" + *value : " unset") + ", finding " + have.finding +
                               " for " + (have.value ? "=" + *have.value : "unset") +
                               "; the file keeps the first");
        }
        return;
      }
      index[name] = plan.lines.size();
      plan.lines.push_back({name, std::move(value), r.finding, r.title});
      used = true;
    };
    for (const auto& kv : r.set) {
      size_t eq = kv.find('=');
      if (eq == std::string::npos) {
        plan.notes.push_back("finding " + r.finding + ": \"" + kv +
                             "\" is not NAME=VALUE; left out");
        continue;
      }
      add(kv.substr(0, eq), kv.substr(eq + 1));
    }
    for (const auto& name : r.unset) add(name, std::nullopt);
    if (used) plan.findings.push_back(r.finding);
  }
  return plan;
}

std::string render_env_file(const EnvPlan& plan) {
  std::string out =
      "# Environment settings proposed by perfsage. Source this file before the next run of the\n"
      "# job:  . ./perfsage.env   (each line names the finding that proposed it)\n";
  for (const auto& l : plan.lines) {
    std::string cmd =
        l.value ? "export " + l.name + "=" + shell_quote(*l.value) : "unset " + l.name;
    out +=
        cmd + "  # finding " + l.finding + (l.title.empty() ? "" : ": " + one_line(l.title)) + "\n";
  }
  return out;
}

}  // namespace perfsage::actions

namespace perfsage::actions {
namespace v1 = perfsage::v1;
namespace {

class EnvFileKind final : public ActionKind {
 public:
  std::string_view name() const override { return "env_file"; }

  Rendered render(store::Database&, const v1::PlannedAction& plan, bool,
                  const std::filesystem::path& out) const override {
    Rendered r;
    std::vector<EnvRequest> requests;
    for (const auto& s : plan.steps()) {
      const auto& e = s.action().env_file();
      requests.push_back({string_list(e.set()), string_list(e.unset()), s.finding(), s.title()});
    }
    auto env = plan_env_file(requests);
    r.notes = env.notes;
    if (env.lines.empty()) return r;
    r.files.push_back({"perfsage.env", "env", render_env_file(env), {}});
    r.usage.push_back(". " + (out / "perfsage.env").string() + "   # before the next run");
    return r;
  }
};

}  // namespace

const ActionKind& env_file_kind() {
  static const EnvFileKind kind;
  return kind;
}

}  // namespace perfsage::actions
