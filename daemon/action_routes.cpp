#include <httplib.h>

#include "app/actions_service.h"
#include "app/fleet_catalog.h"
#include "app/run_listing.h"
#include "app/store_types.h"
#include "daemon/api_routes.h"
#include "daemon/http_server.h"
#include "daemon/http_util.h"
#include "perfsage/v1/api.pb.h"

namespace perfsage::daemon {
namespace v1 = perfsage::v1;
using httplib::Request;
using httplib::Response;

namespace {

// The service's error as an answer. Its usage and input errors say "no planned action N",
// "no apply N" or "no run N" for a missing id (404); the others refuse what was asked (409). A
// store error is most often the write lock an ingest holds for its whole run.
void send_app_error(Response& res, const app::Error& e) {
  switch (e.kind) {
    case app::ErrorKind::usage:
    case app::ErrorKind::input:
      return send_error(res, e.message.rfind("no ", 0) == 0 ? 404 : 409,
                        e.message.rfind("no ", 0) == 0 ? "not_found" : "conflict", e.message);
    case app::ErrorKind::store:
      return send_error(res, 503, "unavailable",
                        e.message + " (an ingest may hold the store; retry later)");
    default:
      return send_error(res, 500, "internal", e.message);
  }
}

// Who acts, for the audit trail: the daemon's account and the client's address.
actions::Actor api_actor(const Request& req) {
  auto actor = app::default_actor();
  actor.name += " (perfsaged API, " + req.remote_addr + ")";
  return actor;
}

bool apply_allowed(const ApiContext* c, Response& res) {
  if (c->config->api_apply_actions) return true;
  send_error(res, 403, "forbidden",
             "applying actions through the API is off (daemon.api_apply_actions); plan them here "
             "and apply with `perfsage actions apply ID --store STORE`");
  return false;
}

// Shared mode (docs/scale-out.md): a run's facts stay in the store of the daemon that analysed
// it, so its actions are planned, applied and rolled back there. The API's ids are the
// catalog's (runs) and the replica's (plans, applies): this daemon's own local id of `kind`'s
// `id`, or nothing when an answer was sent (404, or 409 naming the daemon to ask).
std::optional<int64_t> local_id(const ApiContext* c, const std::string& kind,
                                const std::string& what, int64_t id, Response& res) {
  if (!c->catalog) return id;
  std::optional<app::CatalogOrigin> origin;
  try {
    origin = kind == "runs" ? c->catalog->origin_of(id) : c->catalog->local_origin(kind, id);
  } catch (const app::StoreError& e) {
    send_error(res, 503, "unavailable", std::string("the shared database: ") + e.what());
    return std::nullopt;
  }
  if (!origin) {
    send_error(res, 404, "not_found", "no " + what + " " + std::to_string(id));
    return std::nullopt;
  }
  if (origin->instance != c->instance) {
    send_error(res, 409, "conflict",
               what + " " + std::to_string(id) + " belongs to a run analysed by daemon " +
                   origin->instance +
                   ": the run's facts are in that daemon's store, so send this request to its "
                   "API");
    return std::nullopt;
  }
  return origin->local_run_id;
}

// Shared mode: the change is published with its run, and the answer speaks in the API's ids.
void republish(const ApiContext* c, const std::string& kind, int64_t local) {
  if (c->catalog) c->catalog->republish_run_of(c->config->store, kind, local);
}
int64_t api_id(const ApiContext* c, const std::string& kind, int64_t local) {
  if (!c->catalog || local == 0) return local;
  return c->catalog->replica_id(kind, local).value_or(0);
}
void to_api_ids(const ApiContext* c, v1::ActionApply& a) {
  a.set_id(api_id(c, "action_applies", a.id()));
  a.set_plan_id(api_id(c, "action_plans", a.plan_id()));
}

}  // namespace

void register_action_routes(httplib::Server& svr, ApiContext& ctx) {
  ApiContext* c = &ctx;

  svr.Get(R"(/api/v1/runs/([^/]+)/actions)", [c](const Request& req, Response& res) {
    auto id = path_id(req, res, "run");
    if (!id) return;
    auto lease = c->readers->acquire();
    if (!app::run_exists(lease.db(), *id)) {
      return send_error(res, 404, "not_found", "no run " + std::to_string(*id));
    }
    auto list = app::list_planned_actions(lease.db(), *id);
    if (!list) return send_app_error(res, list.error());
    send_json(res, *list);
  });

  svr.Post(R"(/api/v1/runs/([^/]+)/actions/plan)", [c](const Request& req, Response& res) {
    auto id = path_id(req, res, "run");
    if (!id) return;
    v1::PlanActionsRequest body;
    if (!req.body.empty() && !parse_json_body(req, res, body)) return;
    std::vector<std::string> only(body.findings().begin(), body.findings().end());
    auto run = local_id(c, "runs", "run", *id, res);
    if (!run) return;
    app::Database db(c->config->store.string());
    auto planned = app::plan_run_actions(db, *run, only, api_actor(req));
    if (!planned) return send_app_error(res, planned.error());
    if (!planned->plans.empty()) republish(c, "runs", *run);
    v1::PlanActionsResponse out;
    out.set_run_id(*id);
    for (auto& p : planned->plans) {
      p.set_id(api_id(c, "action_plans", p.id()));
      p.set_run_id(*id);
      *out.add_plans() = std::move(p);
    }
    for (auto& n : planned->notes) out.add_notes(n);
    send_json(res, out);
  });

  svr.Post(R"(/api/v1/actions/([^/]+)/apply)", [c](const Request& req, Response& res) {
    auto id = path_id(req, res, "plan");
    if (!id || !apply_allowed(c, res)) return;
    v1::ApplyActionRequest body;
    if (!req.body.empty() && !parse_json_body(req, res, body)) return;
    auto plan = local_id(c, "action_plans", "planned action", *id, res);
    if (!plan) return;
    app::Database db(c->config->store.string());
    actions::ApplyOptions options{c->config->actions_dir / ("plan-" + std::to_string(*plan)),
                                  body.allow_inexact()};
    auto applied = app::apply_planned_action(db, *plan, options, api_actor(req));
    if (!applied) return send_app_error(res, applied.error());
    republish(c, "action_plans", *plan);
    to_api_ids(c, *applied);
    send_json(res, *applied, applied->already_applied() ? 200 : 201);
  });

  svr.Post(R"(/api/v1/applies/([^/]+)/rollback)", [c](const Request& req, Response& res) {
    auto id = path_id(req, res, "apply");
    if (!id || !apply_allowed(c, res)) return;
    auto apply = local_id(c, "action_applies", "apply", *id, res);
    if (!apply) return;
    app::Database db(c->config->store.string());
    auto rolled = app::roll_back_action(db, *apply, api_actor(req));
    if (!rolled) return send_app_error(res, rolled.error());
    republish(c, "action_applies", *apply);
    to_api_ids(c, *rolled);
    send_json(res, *rolled);
  });
}

}  // namespace perfsage::daemon
