// What each kind of planned action writes (render_action in plan.h).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "actions/aoe.h"
#include "actions/code_hint.h"
#include "actions/env_file.h"
#include "actions/fusion_switch.h"
#include "actions/onnx_rewrite.h"
#include "actions/plan.h"
#include "collectors/common/input_bytes.h"

namespace perfsage::actions {
namespace fs = std::filesystem;
namespace v1 = perfsage::v1;
namespace {

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::vector<std::string> strings(const google::protobuf::RepeatedPtrField<std::string>& r) {
  return {r.begin(), r.end()};
}

const v1::ActionFile* input_with_role(const v1::PlannedAction& plan, const std::string& role) {
  for (const auto& f : plan.inputs()) {
    if (f.role() == role) return &f;
  }
  return nullptr;
}

void render_env(const v1::PlannedAction& plan, const fs::path& out, Rendered& r) {
  std::vector<EnvRequest> requests;
  for (const auto& s : plan.steps()) {
    const auto& e = s.action().env_file();
    requests.push_back({strings(e.set()), strings(e.unset()), s.finding(), s.title()});
  }
  auto env = plan_env_file(requests);
  r.notes = env.notes;
  if (env.lines.empty()) return;
  r.files.push_back({"perfsage.env", "env", render_env_file(env), {}});
  r.usage.push_back(". " + (out / "perfsage.env").string() + "   # before the next run");
}

void render_fusion_switch(store::Database& db, const v1::PlannedAction& plan, const fs::path& out,
                          Rendered& r) {
  std::vector<FusionSwitchRequest> requests;
  for (const auto& s : plan.steps()) {
    const auto& a = s.action().fusion_switch();
    requests.push_back({strings(a.disable()), strings(a.enable()), a.scope(), s.finding()});
  }
  FusionSwitches base;
  if (const auto* in = input_with_role(plan, "fusion_switch_base")) {
    collectors::InputBytes bytes(in->path());
    base = parse_fusion_switch(bytes.view(), in->path());
    r.notes.push_back("keeps the settings of " + in->path() +
                      ", the fusion switch file the graphs were compiled with");
  }
  auto merged = plan_fusion_switch(requests, fusion_pass_classes(db, plan.run_id()), base);
  r.notes.insert(r.notes.end(), merged.notes.begin(), merged.notes.end());
  if (merged.findings.empty()) return;
  r.files.push_back(
      {"fusion_switch.cfg", "fusion_switch", render_fusion_switch_json(merged.switches), {}});
  r.files.push_back({"fusion_switch_lines.cfg",
                     "fusion_switch_lines",
                     render_fusion_switch_lines(merged.switches),
                     {}});
  r.usage = fusion_switch_usage((out / "fusion_switch.cfg").string());
}

void render_aoe(store::Database& db, const v1::PlannedAction& plan, const fs::path& out,
                Rendered& r) {
  std::vector<AoeRequest> requests;
  for (const auto& s : plan.steps()) {
    const auto& a = s.action().aoe();
    auto ops = a.ops().empty() ? strings(s.subjects()) : strings(a.ops());
    requests.push_back({ops, a.job_type(), s.estimated_gain_us(), s.title(), s.finding()});
  }
  auto aoe = plan_aoe(db, plan.run_id(), requests);
  r.notes = aoe.notes;
  if (aoe.ops.empty()) {
    r.notes.push_back("no operator AOE can tune: nothing to write");
    return;
  }
  for (size_t i = 0; i < aoe.ops.size(); ++i) {
    const auto& op = aoe.ops[i];
    char line[256];
    std::snprintf(line, sizeof line, "%zu. %s (%s, %s): %.1f us in the run, est. gain %.1f us",
                  i + 1, op.name.c_str(), op.type.c_str(), op.core_type.c_str(), op.total_us,
                  op.gain_us);
    r.notes.push_back(line);
  }
  auto file = out / "aoe_tune_ops.cfg";
  r.files.push_back({"aoe_tune_ops.cfg", "tune_ops", render_tune_ops_file(aoe), {}});
  r.usage = aoe_commands(aoe, aoe_target(db, plan.run_id()), file.string());
  r.usage.push_back(
      "AOE documentation: tune with profiling off; AOE needs at least 20 GB of disk and 32 GB of "
      "memory");
}

void render_code_hints(const v1::PlannedAction& plan, Rendered& r) {
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
}

void render_onnx(const v1::PlannedAction& plan, bool allow_inexact, const fs::path& out,
                 Rendered& r) {
  const auto* in = input_with_role(plan, "model");
  if (!in)
    throw std::runtime_error("onnx_rewrite plan " + std::to_string(plan.id()) + " names no model");
  auto model = read_onnx_model(in->path());
  std::vector<OnnxRewriteStep> steps;
  for (const auto& s : plan.steps()) {
    const auto& a = s.action().onnx_rewrite();
    if (!find_onnx_pass(a.pass())) {
      r.notes.push_back("finding " + s.finding() + ": unknown onnx_rewrite pass '" + a.pass() +
                        "'");
      continue;
    }
    // Nodes: the action's own list; none for a pass matching by pattern (the activation pack's
    // Mish finding describes the whole model and names a profiled op, not a graph node);
    // otherwise the finding's subjects.
    std::vector<std::string> nodes = strings(a.nodes());
    if (nodes.empty() && a.pattern().empty()) nodes = strings(s.subjects());
    steps.push_back({a.pass(), nodes, a.pattern(), a.replacement(), s.finding()});
  }
  auto report = rewrite_onnx(model, steps, allow_inexact);
  // Per finding: applied wins over inexact over refused; the edited nodes of every match. A
  // match counts for each finding naming one of its nodes (a round trip's second Cast, a fold's
  // Conv), not only the one it was reported under.
  auto record_for = [&](const std::string& finding, const OnnxRewriteNote& n, const char* state) {
    auto& o = r.rewrites[finding];
    if (o.state.empty() || o.state == "refused" || (o.state == "inexact" && *state == 'a'))
      o.state = state;
    if (*state != 'r') o.nodes.insert(o.nodes.end(), n.nodes.begin(), n.nodes.end());
  };
  auto record = [&](const OnnxRewriteNote& n, const char* state) {
    record_for(n.finding, n, state);
    if (*state == 'r') return;
    for (const auto& step : steps) {
      if (step.finding == n.finding) continue;
      bool named = std::any_of(step.nodes.begin(), step.nodes.end(), [&](const std::string& x) {
        return std::find(n.nodes.begin(), n.nodes.end(), x) != n.nodes.end();
      });
      if (named) record_for(step.finding, n, state);
    }
  };
  for (const auto& n : report.applied) record(n, "applied");
  for (const auto& n : report.proposed) record(n, "inexact");
  for (const auto& n : report.skipped) record(n, "refused");
  std::map<std::string, int> applied;
  for (const auto& n : report.applied) {
    ++applied[n.pass];
    r.notes.push_back("finding " + n.finding + ": " + n.text + " (" + join(n.nodes) + ")" +
                      (n.exact ? "" : " [changes outputs: --allow-inexact]"));
  }
  for (const auto& n : report.proposed) {
    r.notes.push_back("finding " + n.finding + ": proposed, not applied without --allow-inexact: " +
                      n.text + " (" + join(n.nodes) + ")");
  }
  for (const auto& n : report.skipped) {
    r.notes.push_back("finding " + n.finding + ": " + n.pass + " not applied at " + join(n.nodes) +
                      ": " + n.text);
  }
  r.has_inexact =
      !report.proposed.empty() || std::any_of(report.applied.begin(), report.applied.end(),
                                              [](const auto& n) { return !n.exact; });
  if (!report.changed()) return;
  // The input's file name: a rerun of the job with the rewritten model keeps the job's name.
  std::string name = fs::path(in->path()).filename().string();
  if (name.size() > 3 && name.ends_with(".gz")) name.resize(name.size() - 3);
  r.files.push_back({name, "model", serialize_onnx_model(model), {}});
  for (const auto& location : onnx_external_files(model)) {
    fs::path source = fs::path(in->path()).parent_path() / location;
    r.files.push_back({location, "external_data", {}, source});
  }
  std::string counts;
  for (const auto& [pass, n] : applied) {
    counts += (counts.empty() ? "" : ", ") + pass + " " + std::to_string(n);
  }
  r.usage.push_back("use " + (out / name).string() + " in place of " + in->path() + " (" + counts +
                    ")");
}

}  // namespace

Rendered render_action(store::Database& db, const v1::PlannedAction& plan, bool allow_inexact,
                       const fs::path& out_dir) {
  Rendered r;
  const std::string& kind = plan.kind();
  if (kind == "env_file") {
    render_env(plan, out_dir, r);
  } else if (kind == "fusion_switch") {
    render_fusion_switch(db, plan, out_dir, r);
  } else if (kind == "aoe") {
    render_aoe(db, plan, out_dir, r);
  } else if (kind == "code_hint") {
    render_code_hints(plan, r);
  } else if (kind == "onnx_rewrite") {
    render_onnx(plan, allow_inexact, out_dir, r);
  } else {
    throw std::runtime_error("unknown action kind '" + kind + "'");
  }
  return r;
}

}  // namespace perfsage::actions
