#include "actions/plan.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "actions/files.h"
#include "actions/fusion_switch.h"
#include "actions/onnx_rewrite.h"
#include "collectors/graph/onnx_records.h"
#include "store/run_registry.h"

namespace perfsage::actions {
namespace fs = std::filesystem;
namespace v1 = perfsage::v1;
namespace {

// The kind a finding's action has: its `kind`, or the message it fills.
std::string kind_of(const v1::Action& a) {
  if (!a.kind().empty()) return a.kind();
  switch (a.detail_case()) {
    case v1::Action::kFusionSwitch:
      return "fusion_switch";
    case v1::Action::kAoe:
      return "aoe";
    case v1::Action::kOnnxRewrite:
      return "onnx_rewrite";
    case v1::Action::kEnvFile:
      return "env_file";
    case v1::Action::kCodeHint:
      return "code_hint";
    default:
      return "";
  }
}

v1::PlannedStep step_of(const v1::Finding& f) {
  v1::PlannedStep s;
  s.set_finding(f.id());
  s.set_pack(f.pack());
  s.set_rule(f.rule());
  s.set_title(f.title());
  s.set_estimated_gain_us(f.estimated_gain_us());
  *s.mutable_subjects() = f.subjects();
  *s.mutable_action() = f.action();
  return s;
}

v1::ActionFile input_file(const std::string& path, const std::string& role) {
  v1::ActionFile f;
  f.set_path(path);
  f.set_role(role);
  f.set_bytes(static_cast<int64_t>(fs::file_size(path)));
  f.set_sha256(sha256_file(path));
  return f;
}

// A file the run read, as an absolute path. Collectors record paths as the user gave them; the
// run's inputs are absolute, so a relative path is resolved against the input it came from
// (the input whose path ends with the file path's leading components).
std::string absolute_input(const store::RunSummary& run, const std::string& path) {
  fs::path p(path);
  if (p.is_absolute()) return path;
  std::vector<fs::path> parts(p.begin(), p.end());
  for (const auto& input : run.inputs) {
    fs::path in = fs::path(input).lexically_normal();
    for (size_t k = parts.size(); k > 0; --k) {
      fs::path prefix;
      for (size_t i = 0; i < k; ++i) prefix /= parts[i];
      std::string in_text = in.string(), prefix_text = prefix.string();
      if (in_text.size() > prefix_text.size() && in_text.ends_with("/" + prefix_text)) {
        fs::path base = in_text.substr(0, in_text.size() - prefix_text.size());
        if (fs::exists(base / p)) return (base / p).lexically_normal().string();
      }
    }
  }
  return fs::absolute(p).lexically_normal().string();
}

std::vector<std::string> onnx_models(store::Database& db, int64_t run_id) {
  auto run = store::load_run(db, run_id);
  auto st = db.prepare(
      "SELECT path FROM ingest_files WHERE run_id = ?1 AND collector = 'onnx-model' ORDER BY "
      "rowid");
  st.bind(1, run_id);
  std::vector<std::string> out;
  while (st.step()) out.push_back(run ? absolute_input(*run, st.text(0)) : st.text(0));
  return out;
}

std::string summary_of(const v1::PlannedAction& p, const Rendered& r) {
  std::string what = p.kind() + ": " + std::to_string(p.steps_size()) + " finding" +
                     (p.steps_size() == 1 ? "" : "s") + ", ";
  if (r.files.empty()) return what + "nothing to write";
  std::string names;
  for (const auto& f : r.files) names += (names.empty() ? "" : ", ") + f.name;
  return what + "writes " + names +
         (r.has_inexact ? " (inexact rewrites need --allow-inexact)" : "");
}

}  // namespace

std::string plan_key(const v1::PlannedAction& plan) {
  std::vector<std::string> ids;
  for (const auto& s : plan.steps()) ids.push_back(s.finding());
  std::sort(ids.begin(), ids.end());
  std::string key = plan.kind();
  // An input that changed (another SHA-256) makes another plan: the stored one would fail.
  for (const auto& in : plan.inputs()) key += "|" + in.path() + "@" + in.sha256();
  for (const auto& id : ids) key += "|" + id;
  return key;
}

PlanResult plan_actions(store::Database& db, const PlanSource& source,
                        const std::vector<v1::Finding>& findings,
                        const std::vector<std::string>& only) {
  PlanResult result;
  std::set<std::string> wanted(only.begin(), only.end());
  std::map<std::string, std::vector<const v1::Finding*>> by_kind;
  std::set<std::string> seen;
  for (const auto& f : findings) {
    if (!wanted.empty() && !wanted.count(f.id())) continue;
    seen.insert(f.id());
    std::string kind = kind_of(f.action());
    if (kind.empty()) {
      if (!wanted.empty()) result.notes.push_back("finding " + f.id() + " proposes no action");
      continue;
    }
    by_kind[kind].push_back(&f);
  }
  for (const auto& id : wanted) {
    if (!seen.count(id)) result.notes.push_back("finding " + id + " is not a finding of this run");
  }

  auto make = [&](const std::string& kind) {
    v1::PlannedAction p;
    p.set_run_id(source.run_id);
    p.set_job(source.job);
    p.set_kind(kind);
    p.set_created(source.created);
    return p;
  };
  std::vector<v1::PlannedAction> plans;
  for (const auto& [kind, list] : by_kind) {
    if (kind != "onnx_rewrite") {
      auto p = make(kind);
      for (const auto* f : list) *p.add_steps() = step_of(*f);
      if (kind == "fusion_switch") {
        if (auto base = compiled_fusion_switch_file(db, source.run_id)) {
          if (fs::is_regular_file(*base)) {
            *p.add_inputs() = input_file(*base, "fusion_switch_base");
          } else {
            result.notes.push_back(
                "the graphs were compiled with the fusion switch file " + *base +
                ", which is not readable here: merge its settings into the new file by hand");
          }
        }
      }
      plans.push_back(std::move(p));
      continue;
    }
    // One plan per model; a finding goes to the first model holding one of its nodes.
    auto models = onnx_models(db, source.run_id);
    if (models.empty()) {
      for (const auto* f : list) {
        result.notes.push_back("finding " + f->id() +
                               ": onnx_rewrite needs the ONNX model among the run's inputs");
      }
      continue;
    }
    std::vector<v1::PlannedAction> per_model;
    std::vector<std::set<std::string>> names;
    for (const auto& m : models) {
      auto model = read_onnx_model(m);
      auto n = collectors::graph::onnx_node_names(model.graph());
      names.emplace_back(n.begin(), n.end());
      per_model.push_back(make(kind));
      *per_model.back().add_inputs() = input_file(m, "model");
    }
    for (const auto* f : list) {
      size_t target = 0;
      for (size_t i = 0; i < models.size(); ++i) {
        bool holds = std::any_of(f->subjects().begin(), f->subjects().end(),
                                 [&](const std::string& s) { return names[i].count(s) > 0; });
        if (holds) {
          target = i;
          break;
        }
      }
      *per_model[target].add_steps() = step_of(*f);
    }
    for (auto& p : per_model) {
      if (p.steps_size() > 0) plans.push_back(std::move(p));
    }
  }

  // Preview: what an apply writes now, with the inexact rewrites left out.
  for (auto& p : plans) {
    Rendered r = render_action(db, p, false, "<out>");
    for (const auto& f : r.files) {
      auto* out = p.add_files();
      out->set_path(f.name);
      out->set_role(f.role);
      if (f.link_to.empty()) {
        out->set_bytes(static_cast<int64_t>(f.content.size()));
        out->set_sha256(sha256_hex(f.content));
      } else {
        out->set_bytes(static_cast<int64_t>(fs::file_size(f.link_to)));
      }
    }
    for (const auto& n : r.notes) p.add_notes(n);
    for (const auto& u : r.usage) p.add_usage(u);
    for (auto& step : *p.mutable_steps()) {
      auto it = r.rewrites.find(step.finding());
      if (it == r.rewrites.end()) continue;
      step.set_rewrite(it->second.state);
      std::set<std::string> seen;
      for (const auto& n : it->second.nodes) {
        if (seen.insert(n).second) step.add_rewrite_nodes(n);
      }
    }
    p.set_has_inexact(r.has_inexact);
    p.set_summary(summary_of(p, r));
    result.plans.push_back(std::move(p));
  }
  return result;
}

}  // namespace perfsage::actions
