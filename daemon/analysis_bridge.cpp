#include "daemon/analysis_bridge.h"

#include <sqlite3.h>

#include <map>

#include "app/actions_service.h"
#include "app/analysis.h"
#include "app/config.h"
#include "app/knowledge.h"
#include "app/resources.h"
#include "engine/finding.h"
#include "store/database.h"

namespace perfsage::daemon {
namespace fs = std::filesystem;
ipc::KnowledgeLoaded load_serving(const fs::path& config_file, uint64_t generation,
                                  Serving& serving) {
  ipc::KnowledgeLoaded out;
  auto fail = [&](const std::string& why) {
    out.set_ok(false);
    out.set_error(why);
    out.set_generation(serving.generation);
    return out;
  };
  app::AppConfig config;
  if (!config_file.empty()) {
    auto read = app::read_config_file(config_file, {"daemon"});
    if (!read) return fail(read.error().message);
    for (const auto& m : read->messages) out.add_messages(m.str());
    config = read->config;
  }
  auto kn =
      app::load_knowledge(config, app::locate_resources(app::ResourceHints::from_environment()));
  if (!kn) return fail(kn.error().message);
  std::string errors;
  for (const auto& m : (*kn)->messages) {
    out.add_messages(m.str());
    if (!m.error()) continue;
    if (!errors.empty()) errors += '\n';
    errors += m.str();
  }
  for (const auto& p : (*kn)->packs.packs) {
    auto* s = out.add_packs();
    s->set_name(p.pack.name);
    s->set_version(p.pack.version);
    s->set_status(p.valid ? "ok" : "error");
    s->set_error(p.error);
    s->set_source(p.pack.source);
    s->set_path(p.pack.dir.string());
    s->set_rules(static_cast<int64_t>(p.rules.size()));
    if (!p.valid && errors.empty()) errors = "pack " + p.pack.name + ": " + p.error;
  }
  for (const auto& path : (*kn)->pack_paths) out.add_pack_paths(path.string());
  // Validated fully: one broken pack fails the whole set, so the old one keeps serving.
  if (!errors.empty()) return fail(errors);
  serving.knowledge = *kn;
  serving.limits = std::make_shared<const app::Limits>(config.limits);
  serving.generation = generation;
  out.set_ok(true);
  out.set_generation(generation);
  return out;
}

namespace {

// daemon.auto_apply_actions: plans the run's actions and applies the exact ones (a plan with a
// rewrite that changes outputs waits for a person) into `dir`/plan-<id>. Applying only writes
// new files there; a failure is a note, never the job's failure.
void apply_exact_actions(store::Database& db, int64_t run_id, const fs::path& dir,
                         ipc::JobResult& out) {
  auto actor = app::default_actor();
  actor.name += " (perfsaged, automatic)";
  auto planned = app::plan_run_actions(db, run_id, {}, actor);
  if (!planned) {
    out.add_action_notes("planning failed: " + planned.error().message);
    return;
  }
  for (const auto& plan : planned->plans) {
    std::string which = "plan " + std::to_string(plan.id()) + " (" + plan.kind() + ")";
    if (plan.has_inexact()) {
      out.add_action_notes(which + ": changes outputs; apply it by hand with allow_inexact");
      continue;
    }
    auto applied = app::apply_planned_action(
        db, plan.id(), {dir / ("plan-" + std::to_string(plan.id())), false}, actor);
    if (!applied) {
      out.add_action_notes(which + ": " + applied.error().message);
    } else if (!applied->already_applied()) {
      out.set_actions_applied(out.actions_applied() + 1);
    }
  }
}

}  // namespace

ipc::JobResult run_job(const ipc::RunJob& job, const Serving& serving, const ProgressFn& progress) {
  ipc::JobResult out;
  try {
    if (!serving.knowledge) {
      out.set_error_kind("pack");
      out.set_error("no knowledge loaded");
      return out;
    }
    store::Database db(job.store());
    // Other workers may hold the write lock for a whole ingest: wait for them, bounded by the
    // job's own time limit (the daemon kills the worker then).
    sqlite3_busy_timeout(db.handle(), 24 * 3600 * 1000);
    app::AnalysisRequest req;
    for (const auto& in : job.inputs()) req.inputs.emplace_back(in);
    req.job = job.job();
    req.mode = job.lenient() ? collectors::Mode::lenient : collectors::Mode::strict;
    req.progress = progress;
    auto result = app::analyze(db, req, *serving.knowledge, *serving.limits);
    if (!result) {
      out.set_error_kind(app::to_string(result.error().kind));
      out.set_error(result.error().message);
      return out;
    }
    out.set_ok(true);
    out.set_run_id(result->run_id);
    out.set_reused(result->reused);
    for (const auto& n : result->notices) out.add_notices(n);
    std::map<std::pair<std::string, std::string>, int64_t> counts;
    for (const auto& f : result->report.recommendations()) {
      ++counts[{f.pack(), engine::severity_name(f.severity())}];
    }
    for (const auto& [key, n] : counts) {
      auto* c = out.add_findings();
      c->set_pack(key.first);
      c->set_severity(key.second);
      c->set_count(n);
    }
    if (!result->reused) {
      int64_t bytes = 0, records = 0;
      for (const auto& f : result->report.ingest()) {
        std::error_code ec;
        auto size = fs::file_size(f.path(), ec);
        if (!ec) bytes += static_cast<int64_t>(size);
        records += f.records();
      }
      out.set_ingest_bytes(bytes);
      out.set_ingest_records(records);
    }
    if (!job.auto_apply_dir().empty()) {
      apply_exact_actions(db, result->run_id, job.auto_apply_dir(), out);
    }
  } catch (const std::exception& e) {
    out.set_ok(false);
    out.set_error_kind("internal");
    out.set_error(e.what());
  }
  return out;
}

}  // namespace perfsage::daemon
