#include "actions/plan.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "actions/files.h"
#include "actions/kind.h"

namespace perfsage::actions {
namespace fs = std::filesystem;
namespace v1 = perfsage::v1;
namespace {

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
    std::string kind = action_kind_of(f.action());
    if (kind.empty()) {
      if (!wanted.empty()) result.notes.push_back("finding " + f.id() + " proposes no action");
      continue;
    }
    by_kind[kind].push_back(&f);
  }
  for (const auto& id : wanted) {
    if (!seen.count(id)) result.notes.push_back("finding " + id + " is not a finding of this run");
  }

  PlanContext ctx{db, source, result.notes};
  std::vector<v1::PlannedAction> plans;
  for (const auto& [kind, list] : by_kind) {
    const ActionKind* k = find_action_kind(kind);
    if (!k) throw std::runtime_error("unknown action kind '" + kind + "'");
    for (auto& p : k->plan(ctx, list)) plans.push_back(std::move(p));
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

Rendered render_action(store::Database& db, const v1::PlannedAction& plan, bool allow_inexact,
                       const fs::path& out_dir) {
  const ActionKind* kind = find_action_kind(plan.kind());
  if (!kind) throw std::runtime_error("unknown action kind '" + plan.kind() + "'");
  return kind->render(db, plan, allow_inexact, out_dir);
}

}  // namespace perfsage::actions
