// httplib's server behind the connection gate (daemon/connection_gate.h). httplib still
// accepts, parses, routes and writes; but it never reads a request from a client: the gate
// receives each request whole, and threads of two lanes serve it from memory, health probes on
// threads of their own, so that slow or many clients cannot keep /healthz and /readyz from
// answering. A kept-alive connection goes back to the gate between requests, with no thread.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "daemon/connection_gate.h"

namespace perfsage::daemon {

// Threads serving complete requests in arrival order; no client has more than `per_client` of
// them at once while others wait.
class ServingLane {
 public:
  using Serve = std::function<void(ConnectionPtr)>;
  ServingLane(int threads, int per_client, Serve serve);
  ~ServingLane();
  void push(ConnectionPtr c);
  // Lets the requests being served finish; closes the ones still waiting for a thread.
  void stop();

 private:
  void work();
  Serve serve_;
  int per_client_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<ConnectionPtr> queue_;
  std::map<std::string, int> busy_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

class HttpFront : public httplib::Server {
 public:
  HttpFront(const HttpLimits& limits, Metrics* metrics);
  ~HttpFront() override;
  // Before listening: the gate and the lanes.
  void start_front();
  // After stop(): the gate closes what waits, the lanes finish what they serve.
  void stop_front();
  int open_connections() const { return gate_.open_connections(); }

 private:
  bool process_and_close_socket(socket_t sock) override;
  void serve(ConnectionPtr c);

  HttpLimits limits_;
  std::atomic<bool> stopping_{false};
  ServingLane probes_, lane_;
  ConnectionGate gate_;
};

}  // namespace perfsage::daemon
