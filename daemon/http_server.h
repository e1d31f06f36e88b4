// The daemon's HTTP side (cpp-httplib): the JSON API under /api/v1 (daemon/api_routes.h),
// /healthz, /readyz, /metrics and the web page. With a token configured every request but
// /healthz and the page's static files needs "Authorization: Bearer <token>"; anything else is
// 401. Errors are JSON {"code", "message"} with the HTTP status; a handler that throws is a 500,
// never a crash.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "app/job_queue.h"
#include "daemon/config.h"
#include "daemon/listen_address.h"
#include "daemon/metrics.h"
#include "daemon/reader_pool.h"
#include "daemon/shared_state.h"

namespace perfsage::app {
class FleetCatalog;
}

namespace perfsage::daemon {

class HttpFront;

struct SubmitOutcome {
  bool ok = false;
  std::string error;       // when !ok: why the path was refused
  bool forbidden = false;  // refused as outside daemon.submit_roots (403, not 400)
  int64_t job_id = 0;
  bool added = false;
};

// What the handlers may use. Everything is safe to call from several threads.
struct ApiContext {
  const DaemonConfig* config = nullptr;
  SharedState* state = nullptr;
  Metrics* metrics = nullptr;
  ReaderPool* readers = nullptr;          // the runs: the store, or in shared mode the replica
  ReaderPool* queue_readers = nullptr;    // the job queue's file
  app::JobQueue* shared_queue = nullptr;  // shared mode: the PostgreSQL queue, read directly
  app::FleetCatalog* catalog = nullptr;   // shared mode: the fleet's runs and packs
  std::string instance;                   // this daemon's owner name
  std::function<SubmitOutcome(const std::string& path, const std::string& job, bool lenient)>
      submit;
  std::function<void()> request_reload;
  std::function<bool()> store_writable;
  std::string version, started;
  std::chrono::steady_clock::time_point started_at;

  // Runs `fn` with the job queue for reading: the shared one, or a pooled reader of the file.
  void read_queue(const std::function<void(app::JobQueue&)>& fn) const;
  // The same where the queue only adds to an answer (a run's job, the job counts): false, and
  // the answer goes without it, when the shared database is away.
  bool try_read_queue(const std::function<void(app::JobQueue&)>& fn) const;
};

class HttpServer {
 public:
  HttpServer(ApiContext ctx, std::string token);
  ~HttpServer();
  // Binds the address; returns the port (the chosen one when port is 0). Throws
  // std::runtime_error when it cannot.
  int bind(const ListenAddress& address);
  void start();
  void stop();

 private:
  void routes();
  ApiContext ctx_;
  std::string token_;
  std::unique_ptr<HttpFront> svr_;
  std::thread thread_;
};

}  // namespace perfsage::daemon
