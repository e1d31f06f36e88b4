// The JSON API under /api/v1 (bodies: proto/perfsage/v1/api.proto; docs/daemon.md lists the
// endpoints with curl examples).
#pragma once

namespace httplib {
class Server;
}

namespace perfsage::daemon {
struct ApiContext;
void register_api_routes(httplib::Server& svr, ApiContext& ctx);
}  // namespace perfsage::daemon
