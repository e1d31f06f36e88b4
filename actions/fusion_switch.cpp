#include "actions/fusion_switch.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "actions/kind.h"
#include "store/file_bytes.h"
#include "store/json_text.h"

namespace perfsage::actions {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::optional<bool> switch_value(std::string_view v) {
  std::string lower(v);
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  if (lower == "on") return true;
  if (lower == "off") return false;
  return std::nullopt;
}

std::string where(const std::string& file, const YAML::Mark& m) {
  return file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

void read_class(const YAML::Node& node, const std::string& file, const char* name,
                std::map<std::string, bool>& out) {
  if (!node) return;
  if (!node.IsMap()) {
    throw std::runtime_error(where(file, node.Mark()) + ": \"" + name +
                             "\" must be an object of pass names");
  }
  for (const auto& kv : node) {
    auto value = kv.second.IsScalar() ? switch_value(kv.second.Scalar()) : std::nullopt;
    if (!value) {
      throw std::runtime_error(where(file, kv.second.Mark()) + ": the switch of " +
                               kv.first.Scalar() + " must be \"on\" or \"off\"");
    }
    out[kv.first.Scalar()] = *value;
  }
}

FusionSwitches parse_json(std::string_view text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(where(file, e.mark) + ": not valid JSON: " + e.msg);
  }
  if (!root.IsMap() || !root["Switch"] || !root["Switch"].IsMap()) {
    throw std::runtime_error(file +
                             ":1: expected an object {\"Switch\": {\"GraphFusion\": ..., "
                             "\"UBFusion\": ...}}");
  }
  FusionSwitches s;
  for (const auto& kv : root["Switch"]) {
    const std::string& key = kv.first.Scalar();
    if (key != "GraphFusion" && key != "UBFusion") {
      throw std::runtime_error(where(file, kv.first.Mark()) + ": unknown class \"" + key +
                               "\" (expected GraphFusion or UBFusion)");
    }
  }
  read_class(root["Switch"]["GraphFusion"], file, "GraphFusion", s.graph);
  read_class(root["Switch"]["UBFusion"], file, "UBFusion", s.ub);
  return s;
}

FusionSwitches parse_lines(std::string_view text, const std::string& file) {
  FusionSwitches s;
  size_t line_no = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(start, end - start));
    start = end + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    size_t colon = line.rfind(':');
    auto value =
        colon == std::string_view::npos ? std::nullopt : switch_value(trim(line.substr(colon + 1)));
    std::string_view pass = colon == std::string_view::npos ? line : trim(line.substr(0, colon));
    if (!value || pass.empty()) {
      throw std::runtime_error(file + ":" + std::to_string(line_no) +
                               ": expected <PassName>:on or <PassName>:off, got \"" +
                               std::string(line) + "\"");
    }
    s.unclassified[std::string(pass)] = *value;
  }
  return s;
}

void render_class(std::string& out, const char* name, const std::map<std::string, bool>& m,
                  bool last) {
  out += "    \"";
  out += name;
  out += "\": {";
  bool first = true;
  // "ALL" first: per-pass entries after it are its exceptions.
  std::vector<std::pair<std::string, bool>> items(m.begin(), m.end());
  std::stable_partition(items.begin(), items.end(),
                        [](const auto& kv) { return kv.first == "ALL"; });
  for (const auto& [pass, on] : items) {
    out += first ? "\n" : ",\n";
    first = false;
    out += "      ";
    store::append_json_string(out, pass);
    out += on ? ": \"on\"" : ": \"off\"";
  }
  out += first ? "}" : "\n    }";
  out += last ? "\n" : ",\n";
}

// The action's scope: the class names of the JSON form, or graph / ub.
FusionClass scope_class(const std::string& scope) {
  if (scope == "GraphFusion" || scope == "graph") return FusionClass::graph;
  if (scope == "UBFusion" || scope == "ub") return FusionClass::ub;
  return FusionClass::unknown;
}

}  // namespace

FusionSwitches parse_fusion_switch(std::string_view text, const std::string& file) {
  std::string_view t = trim(text);
  while (!t.empty() && (t.front() == '\n' || t.front() == ' ')) t.remove_prefix(1);
  if (!t.empty() && t.front() == '{') return parse_json(text, file);
  return parse_lines(text, file);
}

std::string render_fusion_switch_json(const FusionSwitches& s) {
  std::string out = "{\n  \"Switch\": {\n";
  render_class(out, "GraphFusion", s.graph, false);
  render_class(out, "UBFusion", s.ub, true);
  out += "  }\n}\n";
  return out;
}

std::string render_fusion_switch_lines(const FusionSwitches& s) {
  std::string out;
  for (const auto* m : {&s.graph, &s.ub, &s.unclassified}) {
    for (const auto& [pass, on] : *m) {
      if (pass == "ALL") continue;  // the line form has no class to switch as a whole
      out += pass + (on ? ":on\n" : ":off\n");
    }
  }
  return out;
}

std::map<std::string, FusionClass> fusion_pass_classes(store::Database& db, int64_t run_id) {
  std::map<std::string, FusionClass> out;
  auto add = [&](const std::string& pass, const std::string& kind) {
    FusionClass c = kind == "graph_fusion" ? FusionClass::graph
                    : kind == "ub_fusion"  ? FusionClass::ub
                                           : FusionClass::unknown;
    if (c != FusionClass::unknown) out.emplace(pass, c);
  };
  auto stats = db.prepare("SELECT DISTINCT pass, kind FROM fusion_stats WHERE run_id = ?1");
  stats.bind(1, run_id);
  while (stats.step()) add(stats.text(0), stats.text(1));
  auto cands = db.prepare(
      "SELECT DISTINCT pass, kind FROM fusion_candidates WHERE run_id = ?1 AND pass != ''");
  cands.bind(1, run_id);
  while (cands.step()) add(cands.text(0), cands.text(1));
  return out;
}

std::optional<std::string> compiled_fusion_switch_file(store::Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT value FROM graph_attrs WHERE run_id = ?1 AND key = 'ge.fusionSwitchFile' "
      "AND value IS NOT NULL AND value NOT IN ('', '\"\"') LIMIT 1");
  st.bind(1, run_id);
  if (!st.step()) return std::nullopt;
  std::string v = st.text(0);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return v.empty() ? std::nullopt : std::optional<std::string>(v);
}

FusionSwitchPlan plan_fusion_switch(const std::vector<FusionSwitchRequest>& requests,
                                    const std::map<std::string, FusionClass>& classes,
                                    const FusionSwitches& base) {
  FusionSwitchPlan plan;
  plan.switches = base;
  std::map<std::string, std::pair<bool, std::string>> decided;  // pass -> (on, finding)
  for (const auto& r : requests) {
    bool used = false;
    for (bool on : {false, true}) {
      for (const auto& pass : on ? r.enable : r.disable) {
        if (auto it = decided.find(pass); it != decided.end()) {
          if (it->second.first != on) {
            plan.notes.push_back("finding " + r.finding + " asks to switch " + pass +
                                 (on ? " on" : " off") + ", finding " + it->second.second +
                                 " the opposite; the file keeps the first");
          }
          continue;
        }
        decided[pass] = {on, r.finding};
        used = true;
        FusionClass c = scope_class(r.scope);
        if (c == FusionClass::unknown) {
          if (auto it = classes.find(pass); it != classes.end()) c = it->second;
        }
        if (r.scope == "both" || (pass == "ALL" && c == FusionClass::unknown)) {
          plan.switches.graph[pass] = on;
          plan.switches.ub[pass] = on;
        } else if (c == FusionClass::graph) {
          plan.switches.graph[pass] = on;
        } else if (c == FusionClass::ub) {
          plan.switches.ub[pass] = on;
        } else {
          plan.switches.unclassified[pass] = on;
          plan.notes.push_back(pass +
                               " is not known as a graph-fusion or UB-fusion pass in this run, so "
                               "only the line form lists it (add it under GraphFusion or UBFusion "
                               "in the JSON form if you use that)");
        }
        // Documented constraint (ATC --fusion_switch_file).
        if (pass == "RequantFusionPass" && !on) {
          plan.notes.push_back(
              "keep RequantFusionPass on if a Convolution has group == num_output (the CANN "
              "documentation's constraint)");
        }
      }
    }
    if (used) plan.findings.push_back(r.finding);
  }
  // A pass switched in one class is not left switched otherwise in the unclassified list.
  for (const auto* m : {&plan.switches.graph, &plan.switches.ub}) {
    for (const auto& kv : *m) plan.switches.unclassified.erase(kv.first);
  }
  return plan;
}

std::vector<std::string> fusion_switch_usage(const std::string& path) {
  return {
      "ATC: atc ... --fusion_switch_file=" + path,
      "AOE: aoe ... --fusion_switch_file=" + path,
      "PyTorch graph mode (TorchAir): config.fusion_config.fusion_switch_file = \"" + path + "\"",
      "MindSpore Lite converter config: [ascend_context] fusion_switch_config_file_path=" + path,
      "GE session or graph option: ge.fusionSwitchFile=" + path,
  };
}

}  // namespace perfsage::actions

namespace perfsage::actions {
namespace v1 = perfsage::v1;
namespace {

class FusionSwitchKind final : public ActionKind {
 public:
  std::string_view name() const override { return "fusion_switch"; }

  // One file for every finding, over the file the run's graphs were compiled with (an input).
  std::vector<v1::PlannedAction> plan(
      PlanContext& ctx, const std::vector<const v1::Finding*>& findings) const override {
    auto plans = ActionKind::plan(ctx, findings);
    if (auto base = compiled_fusion_switch_file(ctx.db, ctx.source.run_id)) {
      if (std::filesystem::is_regular_file(*base)) {
        *plans.front().add_inputs() = plan_input(*base, "fusion_switch_base");
      } else {
        ctx.notes.push_back(
            "the graphs were compiled with the fusion switch file " + *base +
            ", which is not readable here: merge its settings into the new file by hand");
      }
    }
    return plans;
  }

  Rendered render(store::Database& db, const v1::PlannedAction& plan, bool,
                  const std::filesystem::path& out) const override {
    Rendered r;
    std::vector<FusionSwitchRequest> requests;
    for (const auto& s : plan.steps()) {
      const auto& a = s.action().fusion_switch();
      requests.push_back(
          {string_list(a.disable()), string_list(a.enable()), a.scope(), s.finding()});
    }
    FusionSwitches base;
    if (const auto* in = input_with_role(plan, "fusion_switch_base")) {
      store::InputBytes bytes(in->path());
      base = parse_fusion_switch(bytes.view(), in->path());
      r.notes.push_back("keeps the settings of " + in->path() +
                        ", the fusion switch file the graphs were compiled with");
    }
    auto merged = plan_fusion_switch(requests, fusion_pass_classes(db, plan.run_id()), base);
    r.notes.insert(r.notes.end(), merged.notes.begin(), merged.notes.end());
    if (merged.findings.empty()) return r;
    r.files.push_back(
        {"fusion_switch.cfg", "fusion_switch", render_fusion_switch_json(merged.switches), {}});
    r.files.push_back({"fusion_switch_lines.cfg",
                       "fusion_switch_lines",
                       render_fusion_switch_lines(merged.switches),
                       {}});
    r.usage = fusion_switch_usage((out / "fusion_switch.cfg").string());
    return r;
  }
};

}  // namespace

const ActionKind& fusion_switch_kind() {
  static const FusionSwitchKind kind;
  return kind;
}

}  // namespace perfsage::actions
