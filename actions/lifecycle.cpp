#include "actions/lifecycle.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <set>

#include "actions/files.h"
#include "actions/plan.h"
#include "store/action_store.h"
#include "store/count_text.h"
#include "store/json_text.h"
#include "store/run_registry.h"

namespace perfsage::actions {
namespace fs = std::filesystem;
namespace v1 = perfsage::v1;
namespace {

using Kind = ActionError::Kind;

std::string to_json(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  google::protobuf::util::MessageToJsonString(m, &out, opts);
  return out;
}

v1::PlannedAction plan_from_row(const store::ActionPlanRow& row) {
  v1::PlannedAction p;
  if (!google::protobuf::util::JsonStringToMessage(row.spec, &p).ok()) {
    throw ActionError(Kind::input, "planned action " + std::to_string(row.id) +
                                       ": the stored plan cannot be read");
  }
  p.set_id(row.id);
  return p;
}

v1::ActionFile file_of(const store::ActionFileRow& f) {
  v1::ActionFile out;
  out.set_path(f.path);
  out.set_role(f.role);
  out.set_bytes(f.bytes);
  out.set_sha256(f.sha256);
  return out;
}

v1::ActionApply apply_of(const store::ActionApplyRow& a) {
  v1::ActionApply out;
  out.set_id(a.id);
  out.set_plan_id(a.plan_id);
  out.set_out_dir(a.out_dir);
  out.set_allow_inexact(a.allow_inexact);
  out.set_applied(a.applied);
  out.set_actor(a.actor);
  out.set_rolled_back(a.rolled_back.value_or(""));
  for (const auto& f : a.files) *out.add_files() = file_of(f);
  return out;
}

std::vector<std::string> findings_of(const v1::PlannedAction& p) {
  std::vector<std::string> out;
  for (const auto& s : p.steps()) out.push_back(s.finding());
  return out;
}

// An earlier apply of this plan into this folder whose files are all still as written.
std::optional<store::ActionApplyRow> intact_apply(store::Database& db, int64_t plan_id,
                                                  const fs::path& out_dir, bool allow_inexact) {
  for (const auto& a : store::load_action_applies(db, plan_id)) {
    if (a.rolled_back || a.out_dir != out_dir.string() || a.allow_inexact != allow_inexact) {
      continue;
    }
    bool intact = !a.files.empty();
    for (const auto& f : a.files) {
      intact = intact && fs::is_regular_file(f.path) && sha256_file(f.path) == f.sha256;
    }
    if (intact) return a;
  }
  return std::nullopt;
}

// Every path the run read: an output must never land on one.
std::set<fs::path> run_inputs(store::Database& db, const v1::PlannedAction& plan) {
  std::set<fs::path> out;
  auto st = db.prepare("SELECT path FROM ingest_files WHERE run_id = ?1");
  st.bind(1, plan.run_id());
  while (st.step()) out.insert(fs::weakly_canonical(st.text(0)));
  for (const auto& in : plan.inputs()) out.insert(fs::weakly_canonical(in.path()));
  return out;
}

// [{"path": ..., "sha256": ...}] of the files the plan read (verified unchanged just now).
std::string inputs_json(const v1::PlannedAction& plan) {
  std::string out = "[";
  for (const auto& in : plan.inputs()) {
    out += out.size() > 1 ? ",{\"path\":" : "{\"path\":";
    store::append_json_string(out, in.path());
    out += ",\"sha256\":";
    store::append_json_string(out, in.sha256());
    out += "}";
  }
  return out + "]";
}

}  // namespace

std::vector<v1::PlannedAction> save_plans(store::Database& db, std::vector<v1::PlannedAction> plans,
                                          const Actor& actor) {
  for (auto& p : plans) {
    store::ActionPlanRow row;
    row.run_id = p.run_id();
    row.job = p.job();
    row.kind = p.kind();
    row.key = plan_key(p);
    row.findings = findings_of(p);
    row.spec = to_json(p);
    row.summary = p.summary();
    row.created = p.created();
    auto [id, fresh] = store::save_action_plan(db, row);
    if (!fresh) {
      p = load_plan(db, id);
      continue;
    }
    p.set_id(id);
    store::append_action_audit(
        db, {0, actor.clock(), actor.name, "plan", id, std::nullopt, row.findings, p.summary()});
  }
  return plans;
}

v1::PlannedAction load_plan(store::Database& db, int64_t plan_id) {
  auto row = store::load_action_plan(db, plan_id);
  if (!row) throw ActionError(Kind::not_found, "no planned action " + std::to_string(plan_id));
  return plan_from_row(*row);
}

fs::path default_out_dir(store::Database& db, const v1::PlannedAction& plan) {
  const std::string name = "plan-" + std::to_string(plan.id());
  // Beside the store, as the daemon's actions_dir: never inside the folders a daemon watches
  // for runs, where the files would be taken for a new run of the job.
  if (!db.path().empty() && db.path() != ":memory:")
    return fs::absolute(db.path()).lexically_normal().parent_path() / "perfsage-actions" / name;
  fs::path first;
  if (auto run = store::load_run(db, plan.run_id()); run && !run->inputs.empty()) {
    first = run->inputs.front();
  } else if (plan.inputs_size() > 0) {
    first = plan.inputs(0).path();
  } else {
    throw ActionError(Kind::refused, "planned action " + std::to_string(plan.id()) +
                                         ": its run is no longer stored; give --out");
  }
  fs::path base = fs::absolute(first).lexically_normal();
  if (base.filename().empty()) base = base.parent_path();
  return base.parent_path() / "perfsage-actions" / name;
}

v1::ActionApply apply_action(store::Database& db, int64_t plan_id, const ApplyOptions& options,
                             const Actor& actor) {
  auto plan = load_plan(db, plan_id);
  fs::path out = options.out_dir.empty() ? default_out_dir(db, plan) : options.out_dir;
  out = fs::absolute(out).lexically_normal();
  auto refuse = [&](const std::string& why) {
    store::append_action_audit(db, {0, actor.clock(), actor.name, "apply_refused", plan_id,
                                    std::nullopt, findings_of(plan), why});
    throw ActionError(Kind::refused, "planned action " + std::to_string(plan_id) + ": " + why);
  };
  for (const auto& in : plan.inputs()) {
    if (!fs::is_regular_file(in.path()) || sha256_file(in.path()) != in.sha256()) {
      refuse(in.path() + " changed since the plan (or is gone): plan again");
    }
  }
  if (auto done = intact_apply(db, plan_id, out, options.allow_inexact)) {
    auto result = apply_of(*done);
    result.set_already_applied(true);
    store::append_action_audit(
        db, {0, actor.clock(), actor.name, "apply_noop", plan_id, done->id, findings_of(plan),
             "already applied as apply " + std::to_string(done->id)});
    return result;
  }

  Rendered r = render_action(db, plan, options.allow_inexact, out);
  if (r.files.empty()) refuse("nothing to write (" + std::to_string(r.notes.size()) + " notes)");
  auto inputs = run_inputs(db, plan);
  for (const auto& f : r.files) {
    fs::path target = out / f.name;
    if (inputs.count(fs::weakly_canonical(target))) {
      refuse("would write over its input " + target.string());
    }
    if (fs::exists(fs::symlink_status(target))) {
      refuse("would replace " + target.string() +
             ", which this action did not write; choose another --out or roll back what wrote it");
    }
  }

  store::ActionApplyRow row;
  row.plan_id = plan_id;
  row.out_dir = out.string();
  row.allow_inexact = options.allow_inexact;
  row.applied = actor.clock();
  row.actor = actor.name;
  row.inputs = inputs_json(plan);
  try {
    for (const auto& f : r.files) {
      fs::path target = out / f.name;
      std::string sha;
      int64_t bytes;
      if (f.link_to.empty()) {
        write_file_atomic(target, f.content);
        sha = sha256_hex(f.content);
        bytes = static_cast<int64_t>(f.content.size());
      } else {
        link_file_atomic(f.link_to, target);
        sha = sha256_file(target);
        bytes = static_cast<int64_t>(fs::file_size(target));
      }
      row.files.push_back({target.string(), sha, bytes, f.role});
    }
  } catch (const std::exception& e) {
    for (const auto& f : row.files) remove_file_synced(f.path);
    throw ActionError(Kind::input, e.what());
  }
  std::string detail = "wrote " +
                       store::count_text(static_cast<int64_t>(row.files.size()), "file") +
                       " into " + row.out_dir;
  if (r.has_inexact && !options.allow_inexact) {
    detail += "; inexact rewrites left out (--allow-inexact applies them)";
  }
  try {
    row.id = store::save_action_apply(
        db, row,
        {0, row.applied, actor.name, "apply", plan_id, std::nullopt, findings_of(plan), detail});
  } catch (...) {
    // Unrecorded files could never be rolled back: an apply is both or neither.
    for (const auto& f : row.files) remove_file_synced(f.path);
    throw;
  }
  auto result = apply_of(row);
  for (const auto& n : r.notes) result.add_notes(n);
  for (const auto& u : r.usage) result.add_usage(u);
  return result;
}

v1::ActionApply rollback_action(store::Database& db, int64_t apply_id, const Actor& actor) {
  auto apply = store::load_action_apply(db, apply_id);
  if (!apply) throw ActionError(Kind::not_found, "no apply " + std::to_string(apply_id));
  auto plan = load_plan(db, apply->plan_id);
  if (apply->rolled_back) {
    throw ActionError(Kind::refused, "apply " + std::to_string(apply_id) +
                                         " was already rolled back at " + *apply->rolled_back);
  }
  std::vector<std::string> changed, missing;
  for (const auto& f : apply->files) {
    if (!fs::exists(fs::symlink_status(f.path))) {
      missing.push_back(f.path);
    } else if (!fs::is_regular_file(f.path) || sha256_file(f.path) != f.sha256) {
      changed.push_back(f.path);
    }
  }
  if (!changed.empty()) {
    std::string list;
    for (const auto& c : changed) list += (list.empty() ? "" : ", ") + c;
    std::string why = "refused: changed since the apply: " + list;
    store::append_action_audit(db, {0, actor.clock(), actor.name, "rollback_refused",
                                    apply->plan_id, apply_id, findings_of(plan), why});
    throw ActionError(Kind::refused, "apply " + std::to_string(apply_id) + ": rollback " + why +
                                         " (nothing was removed)");
  }
  // All or nothing: every file is moved aside (a rename in its folder) and the rollback
  // recorded before anything is deleted; a failure on the way puts the moved files back.
  std::vector<std::pair<fs::path, fs::path>> moved;  // aside, original
  std::string at = actor.clock();
  std::string detail =
      "removed " +
      store::count_text(static_cast<int64_t>(apply->files.size() - missing.size()), "file") +
      (missing.empty() ? "" : "; already gone: " + std::to_string(missing.size()));
  try {
    for (const auto& f : apply->files) {
      if (std::find(missing.begin(), missing.end(), f.path) != missing.end()) continue;
      moved.emplace_back(move_aside(f.path), f.path);
    }
    store::mark_action_rolled_back(
        db, apply_id, at,
        {0, at, actor.name, "rollback", apply->plan_id, apply_id, findings_of(plan), detail});
  } catch (...) {
    for (auto it = moved.rbegin(); it != moved.rend(); ++it) {
      try {
        put_back(it->first, it->second);
      } catch (const std::exception&) {  // the first error is the one to report
      }
    }
    throw;
  }
  for (const auto& [aside, original] : moved) remove_file_synced(aside);
  std::error_code ec;
  fs::remove(apply->out_dir, ec);  // only when empty: files others put there stay
  apply->rolled_back = at;
  auto result = apply_of(*apply);
  result.add_notes(detail);
  return result;
}

v1::ActionVerdict verdict_message(const store::ActionVerdictRow& v) {
  v1::ActionVerdict o;
  o.set_apply_id(v.apply_id);
  o.set_finding(v.finding);
  o.set_before_run(v.before_run);
  o.set_after_run(v.after_run);
  o.set_metric(v.metric);
  o.set_unit(v.unit);
  if (v.before) o.set_before(*v.before);
  if (v.after) o.set_after(*v.after);
  if (v.before && v.after) o.set_change(*v.after - *v.before);
  if (v.noise) o.set_noise(*v.noise);
  o.set_verdict(v.verdict);
  o.set_finding_present(v.finding_present);
  o.set_detail(v.detail);
  return o;
}

v1::ActionList list_actions(store::Database& db, std::optional<int64_t> run_id) {
  v1::ActionList out;
  std::set<int64_t> plan_ids;
  for (const auto& row : store::load_action_plans(db, run_id)) {
    *out.add_plans() = plan_from_row(row);
    plan_ids.insert(row.id);
  }
  std::set<int64_t> apply_ids;
  for (const auto& a : store::load_action_applies(db)) {
    if (!plan_ids.count(a.plan_id)) continue;
    *out.add_applies() = apply_of(a);
    apply_ids.insert(a.id);
  }
  for (const auto& v : store::load_action_verdicts(db)) {
    if (!apply_ids.count(v.apply_id)) continue;
    *out.add_verdicts() = verdict_message(v);
  }
  return out;
}

v1::ActionAudit audit_trail(store::Database& db) {
  v1::ActionAudit out;
  for (const auto& row : store::load_action_audit(db)) {
    auto* e = out.add_entries();
    e->set_id(row.id);
    e->set_at(row.at);
    e->set_actor(row.actor);
    e->set_event(row.event);
    e->set_plan_id(row.plan_id.value_or(0));
    e->set_apply_id(row.apply_id.value_or(0));
    for (const auto& f : row.findings) e->add_findings(f);
    e->set_detail(row.detail);
    if (row.apply_id && (row.event == "apply" || row.event == "rollback")) {
      if (auto a = store::load_action_apply(db, *row.apply_id)) {
        for (const auto& f : a->files) *e->add_files() = file_of(f);
      }
    }
  }
  return out;
}

}  // namespace perfsage::actions
