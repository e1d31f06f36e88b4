#include "daemon/http_server.h"

#include <httplib.h>
#include <spdlog/spdlog.h>

#include <fstream>

#include "daemon/api_routes.h"
#include "daemon/http_front.h"
#include "daemon/http_util.h"
#include "daemon/web_assets.h"

namespace perfsage::daemon {

void ApiContext::read_queue(const std::function<void(app::JobQueue&)>& fn) const {
  if (shared_queue) return fn(*shared_queue);
  auto lease = queue_readers->acquire();
  app::SqliteJobQueue queue(lease.db());
  fn(queue);
}

bool ApiContext::try_read_queue(const std::function<void(app::JobQueue&)>& fn) const {
  try {
    read_queue(fn);
    return true;
  } catch (const app::StoreError&) {
    return false;
  }
}

namespace {

// Compares without an early exit, so the time taken says nothing about the token.
bool same_secret(const std::string& a, const std::string& b) {
  if (b.empty()) return false;
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i % b.size()]);
  return diff == 0;
}

// The page's own files carry no data (the data comes from the API, which needs the token);
// health and readiness are for probes, which seldom carry tokens.
bool public_path(const std::string& path) {
  return path == "/" || path == "/healthz" || path == "/readyz" || path.rfind("/ui/", 0) == 0;
}

std::string status_class(int status) {
  return std::to_string(status / 100) + "xx";
}

}  // namespace

HttpServer::HttpServer(ApiContext ctx, std::string token)
    : ctx_(std::move(ctx)),
      token_(std::move(token)),
      svr_(std::make_unique<HttpFront>(ctx_.config->http, ctx_.metrics)) {
  routes();
}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::routes() {
  auto& svr = *svr_;
  // Connections, timeouts, keep-alive and request sizes are the front's (daemon/http_front.h):
  // httplib gets each request whole, from memory, on a bounded set of threads. The limit here
  // is a second line behind the gate's.
  svr.set_payload_max_length(kMaxRequestBody);
  // Headers and body go out in separate writes; with Nagle's algorithm the body waited for the
  // client's delayed ACK, 40 ms on every response (the gate sets TCP_NODELAY on each socket).
  svr.set_tcp_nodelay(true);

  svr.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (token_.empty() || public_path(req.path)) return httplib::Server::HandlerResponse::Unhandled;
    std::string auth = req.get_header_value("Authorization");
    const std::string prefix = "Bearer ";
    if (auth.rfind(prefix, 0) == 0 && same_secret(auth.substr(prefix.size()), token_)) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    res.set_header("WWW-Authenticate", "Bearer");
    send_error(res, 401, "unauthorized",
               auth.empty() ? "this daemon needs a bearer token (Authorization: Bearer TOKEN)"
                            : "the bearer token is wrong");
    return httplib::Server::HandlerResponse::Handled;
  });
  svr.set_exception_handler(
      [](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown error";
        bool store = false;  // the store or the shared database could not answer: try later
        try {
          std::rethrow_exception(ep);
        } catch (const app::StoreError& e) {
          what = e.what();
          store = true;
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        spdlog::error("HTTP {} {}: {}", req.method, req.path, what);
        if (store) return send_error(res, 503, "unavailable", what);
        send_error(res, 500, "internal", what);
      });
  svr.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404) {
      send_error(res, 404, "not_found", "no such endpoint: " + req.method + " " + req.path);
    } else if (res.status == 413) {
      send_error(res, 413, "payload_too_large", "the request body is larger than 1 MiB");
    } else if (res.status == 400 && req.method == "POST" && !req.has_header("Content-Length")) {
      send_error(
          res, 400, "bad_request",
          "a POST needs a body with a Content-Length (send {} when there is nothing to say)");
    } else if (res.status == 405) {
      send_error(res, 405, "bad_request", req.method + " is not allowed on " + req.path);
    } else {
      send_error(res, res.status, "bad_request", "the request could not be served");
    }
  });
  svr.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    ctx_.metrics->add("perfsage_http_requests_total", 1, {{"code", status_class(res.status)}});
    spdlog::debug("HTTP {} {} -> {}", req.method, req.path, res.status);
  });

  svr.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"status\":\"ok\"}", "application/json");
  });
  svr.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    auto s = ctx_.state->get();
    bool writable = ctx_.store_writable();
    // Shared mode: without the database this daemon claims nothing and its replica ages.
    bool database = !s.shared || s.database_error.empty();
    bool ready = s.knowledge_loaded && writable && !s.stopping && database;
    std::string reasons;
    if (!s.knowledge_loaded) reasons += "no knowledge loaded; ";
    if (!writable) reasons += "the store is not writable; ";
    if (!database)
      reasons += "the shared database does not answer (" + s.database_error +
                 "); no job is claimed and the runs served are those already replicated; ";
    if (s.stopping) reasons += "stopping; ";
    std::string body = "{\"ready\":" + std::string(ready ? "true" : "false");
    body += ",\"knowledge_generation\":" + std::to_string(s.generation);
    body += ",\"packs\":" + std::to_string(s.serving_packs());
    body += ",\"store_writable\":" + std::string(writable ? "true" : "false");
    body += ",\"database\":" + std::string(!s.shared ? "\"none\"" : database ? "\"ok\"" : "\"unreachable\"");
    body += ",\"last_reload_ok\":" + std::string(s.last_reload.ok ? "true" : "false");
    body += ",\"last_reload_error\":" + json_quote(s.last_reload.error);
    if (s.knowledge_loaded && !s.last_reload.ok) {
      reasons +=
          "the last reload failed, generation " + std::to_string(s.generation) + " keeps serving; ";
    }
    // Ready, but degraded: packs that do not load are left out (GET /api/v1/packs says why).
    std::string broken;
    for (const auto* p : s.broken_packs()) {
      broken += (broken.empty() ? "" : ",") + json_quote(p->name());
      reasons += "pack " + p->name() + " does not load and is left out; ";
    }
    body += ",\"degraded\":" + std::string(broken.empty() ? "false" : "true");
    body += ",\"broken_packs\":[" + broken + "]";
    body += ",\"notes\":" + json_quote(reasons) + "}";
    res.status = ready ? 200 : 503;
    res.set_content(body, "application/json");
  });
  svr.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    std::map<std::string, std::map<Labels, double>> extra;
    std::map<app::JobState, int64_t> counts;
    // The shared database away: the queue gauges are left out, the rest still answers.
    ctx_.try_read_queue([&](app::JobQueue& queue) { counts = queue.counts(); });
    for (const auto& [state, n] : counts) {
      extra["perfsage_jobs"][{{"state", app::to_string(state)}}] = static_cast<double>(n);
      if (state == app::JobState::queued) {
        extra["perfsage_queue_length"][{}] = static_cast<double>(n);
      }
    }
    auto s = ctx_.state->get();
    extra["perfsage_workers_busy"][{}] = static_cast<double>(s.running.size());
    extra["perfsage_runs_pending"][{}] = static_cast<double>(s.pending.size());
    extra["perfsage_watched_folders"][{}] = static_cast<double>(s.watched_folders);
    extra["perfsage_inotify_watches"][{}] = static_cast<double>(s.inotify_watches);
    extra["perfsage_packs_loaded"][{}] = static_cast<double>(s.serving_packs());
    extra["perfsage_packs_broken"][{}] = static_cast<double>(s.broken_packs().size());
    extra["perfsage_knowledge_generation"][{}] = static_cast<double>(s.generation);
    extra["perfsage_last_reload_success"][{}] = s.last_reload.ok ? 1 : 0;
    extra["perfsage_http_connections"][{}] = static_cast<double>(svr_->open_connections());
    if (s.shared) extra["perfsage_database_up"][{}] = s.database_error.empty() ? 1 : 0;
    res.set_content(ctx_.metrics->render(extra), "text/plain; version=0.0.4; charset=utf-8");
  });

  auto asset = [](const std::string& name, const char* type) {
    return [name, type](const httplib::Request&, httplib::Response& res) {
      auto body = web_asset(name);
      if (body.empty()) {
        send_error(res, 404, "not_found", "no asset " + name);
        return;
      }
      res.set_header("Cache-Control", "no-cache");
      res.set_header("Content-Security-Policy",
                     "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:");
      res.set_content(std::string(body), type);
    };
  };
  svr.Get("/", asset("index.html", "text/html; charset=utf-8"));
  svr.Get("/ui/app.js", asset("app.js", "text/javascript; charset=utf-8"));
  svr.Get("/ui/run_view.js", asset("run_view.js", "text/javascript; charset=utf-8"));
  svr.Get("/ui/report.css", asset("report.css", "text/css; charset=utf-8"));

  register_api_routes(svr, ctx_);
  register_action_routes(svr, ctx_);
}

int HttpServer::bind(const ListenAddress& address) {
  int port = address.port;
  if (port == 0) {
    port = svr_->bind_to_any_port(address.host);
    if (port < 0) throw std::runtime_error("cannot listen on " + address.host + ":0");
  } else if (!svr_->bind_to_port(address.host, port)) {
    throw std::runtime_error("cannot listen on " + address.host + ":" + std::to_string(port) +
                             " (in use, or not an address of this host)");
  }
  return port;
}

void HttpServer::start() {
  svr_->start_front();
  thread_ = std::thread([this] { svr_->listen_after_bind(); });
}

void HttpServer::stop() {
  if (svr_) svr_->stop();
  if (thread_.joinable()) thread_.join();
  if (svr_) svr_->stop_front();
}

}  // namespace perfsage::daemon
