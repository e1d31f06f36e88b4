// The JSON API under /api/v1 (bodies: proto/perfsage/v1/api.proto; docs/daemon.md lists the
// endpoints with curl examples).
#pragma once

namespace httplib {
class Server;
}

namespace perfsage::daemon {
struct ApiContext;
void register_api_routes(httplib::Server& svr, ApiContext& ctx);
// A run's tuning actions: list, plan, and where daemon.api_apply_actions allows it, apply and
// roll back, through app/actions_service.h as `perfsage actions` does (action_routes.cpp).
void register_action_routes(httplib::Server& svr, ApiContext& ctx);
}  // namespace perfsage::daemon
