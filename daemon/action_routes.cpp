#include <httplib.h>

#include "app/actions_service.h"
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
    app::Database db(c->config->store.string());
    auto planned = app::plan_run_actions(db, *id, only, api_actor(req));
    if (!planned) return send_app_error(res, planned.error());
    v1::PlanActionsResponse out;
    out.set_run_id(planned->run_id);
    for (auto& p : planned->plans) *out.add_plans() = std::move(p);
    for (auto& n : planned->notes) out.add_notes(n);
    send_json(res, out);
  });

  svr.Post(R"(/api/v1/actions/([^/]+)/apply)", [c](const Request& req, Response& res) {
    auto id = path_id(req, res, "plan");
    if (!id || !apply_allowed(c, res)) return;
    v1::ApplyActionRequest body;
    if (!req.body.empty() && !parse_json_body(req, res, body)) return;
    app::Database db(c->config->store.string());
    actions::ApplyOptions options{c->config->actions_dir / ("plan-" + std::to_string(*id)),
                                  body.allow_inexact()};
    auto applied = app::apply_planned_action(db, *id, options, api_actor(req));
    if (!applied) return send_app_error(res, applied.error());
    send_json(res, *applied, applied->already_applied() ? 200 : 201);
  });

  svr.Post(R"(/api/v1/applies/([^/]+)/rollback)", [c](const Request& req, Response& res) {
    auto id = path_id(req, res, "apply");
    if (!id || !apply_allowed(c, res)) return;
    app::Database db(c->config->store.string());
    auto rolled = app::roll_back_action(db, *id, api_actor(req));
    if (!rolled) return send_app_error(res, rolled.error());
    send_json(res, *rolled);
  });
}

}  // namespace perfsage::daemon
