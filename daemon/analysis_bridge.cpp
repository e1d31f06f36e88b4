#include "daemon/analysis_bridge.h"

#include <sqlite3.h>

#include <map>
#include <set>

#include "app/analysis.h"
#include "app/auto_apply.h"
#include "app/cluster_jobs.h"
#include "app/config.h"
#include "app/front_end_names.h"
#include "app/input_scope.h"
#include "app/knowledge.h"
#include "app/pack_status.h"
#include "app/resources.h"
#include "app/store_types.h"

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
  for (const auto& m : (*kn)->messages) out.add_messages(m.str());
  auto statuses = app::pack_statuses(**kn);
  auto broken = app::broken_packs(statuses);
  // A pack that serves now and would not after this load: the load fails and the old set keeps
  // serving. A pack that is broken at start (or was broken already) only degrades the service:
  // the good packs serve, the broken one is listed with its error.
  std::string errors;
  if (serving.knowledge) {
    std::set<std::string> serving_ok;
    for (const auto& p : app::pack_statuses(*serving.knowledge))
      if (p.status() == "ok") serving_ok.insert(p.name());
    for (const auto& b : broken) {
      if (!serving_ok.count(b.name())) continue;
      if (!errors.empty()) errors += '\n';
      errors += "pack " + b.name() + ": " + b.error();
    }
  }
  for (auto& p : statuses) *out.add_packs() = std::move(p);
  for (const auto& path : (*kn)->pack_paths) out.add_pack_paths(path.string());
  if (!errors.empty()) return fail(errors);
  for (const auto& b : broken) {
    if (!out.error().empty()) out.set_error(out.error() + '\n');
    out.set_error(out.error() + "pack " + b.name() + " does not serve: " + b.error());
  }
  serving.knowledge = *kn;
  serving.limits = std::make_shared<const app::Limits>(config.limits);
  app::learn_derived_table_shapes();  // once here rather than in every worker
  serving.generation = generation;
  out.set_ok(true);
  out.set_generation(generation);
  return out;
}

namespace {

void count_findings(const perfsage::v1::AnalysisReport& report, ipc::JobResult& out) {
  std::map<std::pair<std::string, std::string>, int64_t> counts;
  for (const auto& f : report.recommendations()) {
    ++counts[{f.pack(), app::severity_name(f.severity())}];
  }
  for (const auto& [key, n] : counts) {
    auto* c = out.add_findings();
    c->set_pack(key.first);
    c->set_severity(key.second);
    c->set_count(n);
  }
}

// A cluster run's reduce (app/cluster_jobs.h): the run assembled from its rank jobs' results.
ipc::JobResult reduce_job(const ipc::RunJob& job, const Serving& serving, app::Database& db,
                          const ProgressFn& progress) {
  ipc::JobResult out;
  progress("reduce", -1, 0);
  app::ReduceRequest req;
  req.postgres = job.postgres();
  req.job_id = job.job_id();
  req.job = job.job();
  for (const auto& in : job.inputs()) req.inputs.emplace_back(in);
  auto run = app::reduce_cluster_job(db, req, *serving.knowledge, *serving.limits);
  if (!run) {
    out.set_error_kind(app::to_string(run.error().kind));
    out.set_error(run.error().message);
    return out;
  }
  out.set_ok(true);
  out.set_run_id(*run);
  if (auto report = app::load_report(db, *run)) count_findings(*report, out);
  return out;
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
    std::vector<fs::path> roots(job.allowed_roots().begin(), job.allowed_roots().end());
    for (const auto& in : job.inputs()) {
      if (auto why = app::outside_roots(in, roots); !why.empty()) {
        out.set_error_kind("usage");
        out.set_error("refused: " + why);
        return out;
      }
    }
    app::AnalysisRequest req;
    for (const auto& in : job.inputs()) req.inputs.emplace_back(in);
    req.job = job.job();
    req.mode = job.lenient() ? app::InputMode::lenient : app::InputMode::strict;
    if (job.fan_out() && job.kind() == "run") {
      // A cluster of ranks: its rank jobs analyse it, on any daemon.
      if (auto ranks = app::plan_rank_jobs(req.inputs)) {
        out.set_ok(true);
        for (const auto& r : *ranks) {
          auto* to = out.add_ranks();
          to->set_rank(r.rank);
          for (const auto& in : r.inputs) to->add_inputs(in);
        }
        return out;
      }
    }
    if (job.kind() == "rank") {
      req.progress = [&](std::string_view s, double fraction) { progress(s, fraction, 0); };
      auto folder = app::analyze_rank(req, app::rank_spool(job.store()), job.job_id(),
                                      *serving.knowledge, *serving.limits);
      if (!folder) {
        out.set_error_kind(app::to_string(folder.error().kind));
        out.set_error(folder.error().message);
        return out;
      }
      out.set_ok(true);
      out.set_rank_folder(folder->string());
      return out;
    }
    app::Database db(job.store());
    // Other workers may hold the write lock for a whole ingest: wait for them, bounded by the
    // job's own time limit (the daemon kills the worker then).
    sqlite3_busy_timeout(db.handle(), 24 * 3600 * 1000);
    if (job.kind() == "reduce") return reduce_job(job, serving, db, progress);
    int64_t run_id = 0;
    std::string stage = "ingest";
    req.progress = [&](std::string_view s, double fraction) {
      stage = s;
      progress(s, fraction, run_id);
    };
    req.run_known = [&](int64_t id) {
      run_id = id;
      progress(stage, -1, run_id);
    };
    req.keep_unrecognised = false;
    auto result = app::analyze(db, req, *serving.knowledge, *serving.limits);
    if (!result) {
      out.set_error_kind(app::to_string(result.error().kind));
      out.set_error(result.error().message);
      return out;
    }
    if (result->nothing_recognised) {
      // No run of the job: a failed job saying why, never an "analysed" run without findings.
      out.set_error_kind("input");
      for (const auto& n : result->notices)
        if (n.rfind("nothing recognised", 0) == 0) out.set_error(n);
      return out;
    }
    out.set_ok(true);
    out.set_run_id(result->run_id);
    out.set_reused(result->reused);
    for (const auto& n : result->notices) out.add_notices(n);
    count_findings(result->report, out);
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
      auto applied = app::apply_exact_actions(db, result->run_id, job.auto_apply_dir());
      out.set_actions_applied(applied.applied);
      for (const auto& n : applied.notes) out.add_action_notes(n);
    }
  } catch (const std::exception& e) {
    out.set_ok(false);
    out.set_error_kind("internal");
    out.set_error(e.what());
  }
  return out;
}

}  // namespace perfsage::daemon
