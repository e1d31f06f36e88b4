#include "daemon/api_routes.h"

#include <httplib.h>

#include <chrono>
#include <set>
#include <unordered_map>

#include "app/compare_html.h"
#include "app/fleet_catalog.h"
#include "app/job_history.h"
#include "app/queue_view.h"
#include "app/report_html.h"
#include "app/run_comparison.h"
#include "app/run_detail.h"
#include "app/run_listing.h"
#include "daemon/http_server.h"
#include "daemon/http_util.h"
#include "perfsage/v1/api.pb.h"

namespace perfsage::daemon {
namespace v1 = perfsage::v1;
using httplib::Request;
using httplib::Response;

namespace {

constexpr int kMaxRuns = 500;

v1::ReloadResult to_proto(const ReloadInfo& r) {
  v1::ReloadResult out;
  out.set_time(r.time);
  out.set_trigger(r.trigger);
  out.set_ok(r.ok);
  out.set_error(r.error);
  out.set_generation(r.generation);
  for (const auto& m : r.messages) out.add_messages(m);
  return out;
}

// What the queue cannot know: the stage and progress of the jobs running now.
std::vector<app::JobProgress> progress_of(const StateSnapshot& s) {
  std::vector<app::JobProgress> out;
  for (const auto& r : s.running) out.push_back({r.job_id, r.stage, r.fraction, r.pid, r.run_id});
  return out;
}

// Answers 404 when the store has no run `id`.
bool run_found(app::Database& db, int64_t id, Response& res) {
  if (app::run_exists(db, id)) return true;
  send_error(res, 404, "not_found", "no run " + std::to_string(id));
  return false;
}

// GET .../compare?a=RUN&b=RUN[&top=N][&sort=step|total]: the comparison, or nothing when an
// error was sent.
std::optional<v1::RunComparison> compare_request(ApiContext* c, const Request& req, Response& res) {
  auto a = int_param(req, res, "a", 0, 1, INT64_MAX);
  if (!a) return std::nullopt;
  auto b = int_param(req, res, "b", 0, 1, INT64_MAX);
  if (!b) return std::nullopt;
  if (*a == 0 || *b == 0) {
    send_error(res, 400, "bad_request", "give the two runs as ?a=RUN&b=RUN");
    return std::nullopt;
  }
  auto top = int_param(req, res, "top", 10, 1, 1000);
  if (!top) return std::nullopt;
  app::CompareOptions options;
  options.top = static_cast<int>(*top);
  std::string sort = text_param(req, "sort");
  if (sort == "total") {
    options.order = app::OpOrder::total;
  } else if (!sort.empty() && sort != "step") {
    send_error(res, 400, "bad_request", "sort must be step or total");
    return std::nullopt;
  }
  auto lease = c->readers->acquire();
  if (!run_found(lease.db(), *a, res) || !run_found(lease.db(), *b, res)) return std::nullopt;
  auto compared = app::compare_runs(lease.db(), *a, *b, options);
  if (!compared) {
    send_error(res, 500, "internal", compared.error().message);
    return std::nullopt;
  }
  return std::move(*compared);
}

}  // namespace

void register_api_routes(httplib::Server& svr, ApiContext& ctx) {
  ApiContext* c = &ctx;

  svr.Get("/api/v1/status", [c](const Request&, Response& res) {
    auto s = c->state->get();
    v1::DaemonStatus out;
    out.set_version(c->version);
    out.set_started(c->started);
    out.set_uptime_s(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - c->started_at).count());
    out.set_ready(s.knowledge_loaded && !s.stopping && c->store_writable());
    out.set_store(c->config->store.string());
    for (const auto& w : c->config->watch) out.add_watching(w.path.string());
    out.set_workers(c->config->workers);
    out.set_busy(static_cast<int32_t>(s.running.size()));
    c->try_read_queue([&](app::JobQueue& q) {
      for (const auto& [state, n] : app::queue_counts(q)) (*out.mutable_jobs())[state] = n;
    });
    out.set_pending_runs(static_cast<int64_t>(s.pending.size()));
    out.set_knowledge_generation(s.generation);
    out.set_packs(static_cast<int64_t>(s.serving_packs()));
    out.set_broken_packs(static_cast<int64_t>(s.broken_packs().size()));
    *out.mutable_last_reload() = to_proto(s.last_reload);
    out.set_auto_apply_actions(c->config->auto_apply_actions);
    send_json(res, out);
  });

  svr.Get("/api/v1/runs", [c](const Request& req, Response& res) {
    app::RunQuery q;
    q.job = text_param(req, "job");
    q.since = text_param(req, "since");
    q.until = text_param(req, "until");
    q.status = text_param(req, "status");
    if (!app::valid_time_prefix(q.since) || !app::valid_time_prefix(q.until)) {
      return send_error(res, 400, "bad_request",
                        "since and until must be ISO-8601 times, e.g. 2026-01-31T12:00:00Z");
    }
    auto limit = int_param(req, res, "limit", 50, 1, kMaxRuns);
    auto before = int_param(req, res, "page_token", 0, 0, INT64_MAX);
    if (!limit || !before) return;
    q.limit = static_cast<int>(*limit);
    q.before_id = *before;
    auto lease = c->readers->acquire();
    auto running = progress_of(c->state->get());
    auto out = app::list_runs(lease.db(), q, running);
    if (!out) return send_error(res, 400, "bad_request", out.error().message);
    c->try_read_queue([&](app::JobQueue& q) { app::add_queue_jobs(q, *out->mutable_runs()); });
    app::mark_running(*out->mutable_runs(), running);  // their queue job, not the stored one
    send_json(res, *out);
  });

  svr.Get(R"(/api/v1/runs/([^/]+))", [c](const Request& req, Response& res) {
    auto id = path_id(req, res, "run");
    if (!id) return;
    auto lease = c->readers->acquire();
    if (!run_found(lease.db(), *id, res)) return;
    auto detail = app::load_run_detail(lease.db(), *id);
    if (!detail) return send_error(res, 500, "internal", detail.error().message);
    c->try_read_queue([&](app::JobQueue& q) { app::add_queue_job(q, *detail->mutable_summary()); });
    app::mark_running(*detail->mutable_summary(), progress_of(c->state->get()));
    send_json(res, *detail);
  });

  svr.Get(R"(/api/v1/runs/([^/]+)/report\.html)", [c](const Request& req, Response& res) {
    auto id = path_id(req, res, "run");
    if (!id) return;
    auto lease = c->readers->acquire();
    if (!run_found(lease.db(), *id, res)) return;
    auto html = app::render_run_html(lease.db(), *id);
    if (!html) return send_error(res, 500, "internal", html.error().message);
    res.set_header("Content-Disposition",
                   "attachment; filename=\"perfsage-run-" + std::to_string(*id) + ".html\"");
    res.set_content(*html, "text/html; charset=utf-8");
  });

  svr.Get("/api/v1/jobs", [c](const Request&, Response& res) {
    auto lease = c->readers->acquire();
    send_json(res, app::list_jobs(lease.db()));
  });

  svr.Get(R"(/api/v1/jobs/(.+)/history)", [c](const Request& req, Response& res) {
    std::string job = req.matches[1].str();
    auto limit = int_param(req, res, "limit", 50, 1, kMaxRuns);
    if (!limit) return;
    std::set<int64_t> in_progress;
    for (const auto& r : c->state->get().running)
      if (r.run_id != 0) in_progress.insert(r.run_id);
    auto lease = c->readers->acquire();
    auto history = app::job_history(lease.db(), job, static_cast<int>(*limit), in_progress);
    if (!history) return send_error(res, 404, "not_found", "no runs of job '" + job + "'");
    c->try_read_queue([&](app::JobQueue& q) { app::add_queue_jobs(q, *history->mutable_runs()); });
    send_json(res, *history);
  });

  svr.Get("/api/v1/compare", [c](const Request& req, Response& res) {
    if (auto compared = compare_request(c, req, res)) send_json(res, *compared);
  });

  // The same comparison as one self-contained page, linked from a job's history.
  svr.Get(R"(/api/v1/compare\.html)", [c](const Request& req, Response& res) {
    if (auto compared = compare_request(c, req, res))
      res.set_content(app::render_compare_html(*compared), "text/html; charset=utf-8");
  });

  svr.Get("/api/v1/queue", [c](const Request& req, Response& res) {
    app::QueueQuery q;
    q.state = text_param(req, "state");
    if (!app::valid_queue_state(q.state)) {
      return send_error(res, 400, "bad_request",
                        "state must be queued, running, done, failed or quarantined");
    }
    q.job = text_param(req, "job");
    auto limit = int_param(req, res, "limit", 50, 1, kMaxRuns);
    auto before = int_param(req, res, "page_token", 0, 0, INT64_MAX);
    if (!limit || !before) return;
    q.limit = static_cast<int>(*limit);
    q.before_id = *before;
    auto s = c->state->get();
    app::Result<v1::QueueState> out = v1::QueueState();
    c->read_queue([&](app::JobQueue& queue) { out = app::queue_view(queue, q, progress_of(s)); });
    if (!out) return send_error(res, 400, "bad_request", out.error().message);
    for (const auto& p : s.pending) {
      auto* o = out->add_pending();
      o->set_path(p.run.path.string());
      o->set_job(p.run.job);
      o->set_waiting_for(p.waiting_for);
    }
    send_json(res, *out);
  });

  svr.Get(R"(/api/v1/queue/([^/]+))", [c](const Request& req, Response& res) {
    auto id = path_id(req, res, "queue job");
    if (!id) return;
    std::optional<v1::QueueJob> job;
    c->read_queue(
        [&](app::JobQueue& q) { job = app::queue_job(q, *id, progress_of(c->state->get())); });
    if (!job) return send_error(res, 404, "not_found", "no queue job " + std::to_string(*id));
    send_json(res, *job);
  });

  svr.Post("/api/v1/submit", [c](const Request& req, Response& res) {
    v1::SubmitRequest body;
    if (!parse_json_body(req, res, body)) return;
    auto r = c->submit(body.path(), body.job(), body.lenient());
    if (r.forbidden) return send_error(res, 403, "forbidden", r.error);
    if (!r.ok) {
      int status = c->state->get().stopping ? 503 : 400;
      return send_error(res, status, status == 503 ? "unavailable" : "bad_request", r.error);
    }
    v1::SubmitResponse out;
    c->read_queue([&](app::JobQueue& q) {
      if (auto job = app::queue_job(q, r.job_id, progress_of(c->state->get())))
        *out.mutable_job() = *job;
    });
    out.set_added(r.added);
    send_json(res, out, r.added ? 201 : 200);
  });

  svr.Get("/api/v1/packs", [c](const Request&, Response& res) {
    auto s = c->state->get();
    v1::PackStatusList out;
    for (const auto& p : s.packs) *out.add_packs() = p;
    out.set_generation(s.generation);
    *out.mutable_last_reload() = to_proto(s.last_reload);
    send_json(res, out);
  });

  // Every daemon's packs: in shared mode as each published them to the catalog.
  svr.Get("/api/v1/fleet", [c](const Request&, Response& res) {
    if (!c->catalog) {
      auto s = c->state->get();
      v1::FleetStatus out;
      auto* d = out.add_daemons();
      d->set_instance(c->instance);
      d->set_generation(s.generation);
      d->set_updated(s.last_reload.time);
      for (const auto& p : s.packs) *d->add_packs() = p;
      return send_json(res, out);
    }
    try {
      send_json(res, c->catalog->fleet());
    } catch (const app::StoreError& e) {
      send_error(res, 503, "unavailable", std::string("the shared database: ") + e.what());
    }
  });

  svr.Post("/api/v1/packs/reload", [c](const Request&, Response& res) {
    c->request_reload();
    res.status = 202;
    res.set_content(
        "{\"status\":\"reload requested; GET /api/v1/packs shows its result as last_reload\"}",
        "application/json");
  });
}

}  // namespace perfsage::daemon
