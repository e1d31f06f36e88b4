// The HTTP server's front door. httplib reads requests in its worker threads, a byte at a time,
// with no limit on how long a request may take to arrive, and reads chunked bodies without any
// size limit (cpp-httplib 0.11): sixteen clients sending a header line every few seconds held
// all its threads, and a chunked body grew the daemon by gigabytes. The gate instead receives
// every request whole before a thread sees it, in one thread that polls all connections:
//
//   * a request's head must arrive within `header_timeout` (408), be at most 64 KiB (431), and
//     its body within `body_timeout` after the head (408); a body is at most 1 MiB as sent,
//     chunk framing included (413), whatever the token;
//   * at most `max_connections` are open, and `max_connections_per_client` from one address;
//     a new connection over a limit closes the one that has waited longest for its next request
//     (a slow client's, or an idle kept-alive one); when every connection is busy being served
//     the new one may still ask for /healthz or /readyz, and is refused (503) otherwise;
//   * a kept-alive connection waits here, without a thread, for `idle_timeout`.
//
// Complete requests go to `dispatch` (daemon/http_front.h), which serves them from memory and
// gives the connection back with resume() or close().
#pragma once

#include <chrono>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "daemon/config.h"
#include "daemon/metrics.h"
#include "daemon/request_head.h"

namespace perfsage::daemon {

constexpr size_t kMaxRequestHead = 64u << 10;
constexpr uint64_t kMaxRequestBody = 1u << 20;

// One client connection; closes its socket when destroyed.
struct Connection {
  explicit Connection(int socket) : fd(socket) {}
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int fd;
  std::string peer_ip;
  int peer_port = 0;
  std::string received;  // bytes read and not yet served (the next request, pipelined)
  int served = 0;        // requests answered on it
  // Set when a request is complete:
  std::string request;  // head and body, as sent
  bool probe = false;
  bool continue_sent = false;  // the gate answered "Expect: 100-continue"
};
using ConnectionPtr = std::unique_ptr<Connection>;

// The numeric address and port of a socket's peer (or, with peer false, its own end).
void socket_address(int fd, bool peer, std::string& ip, int& port);

class ConnectionGate {
 public:
  using Dispatch = std::function<void(ConnectionPtr)>;
  ConnectionGate(const HttpLimits& limits, Metrics* metrics, Dispatch dispatch);
  ~ConnectionGate();
  ConnectionGate(const ConnectionGate&) = delete;
  ConnectionGate& operator=(const ConnectionGate&) = delete;

  void start();
  // Closes every connection waiting here; served ones are closed as they come back.
  void stop();
  // From any thread: a new connection (the gate owns it from here).
  void admit(int fd);
  // From any thread: a connection whose request was answered, kept alive for the next.
  void resume(ConnectionPtr c);
  // From any thread: a connection that is done with.
  void close(ConnectionPtr c);
  int open_connections() const;

 private:
  // closing: answered with an error, what the client still sends is read and dropped for a
  // moment, so that it can read the answer (closing at once could reset it unread).
  enum class Phase { head, body, closing };
  struct Waiting {
    ConnectionPtr conn;
    std::chrono::steady_clock::time_point since, deadline;
    Phase phase = Phase::head;
    RequestHead head;
    ChunkedScanner chunks{kMaxRequestBody};
    size_t body_scanned = 0;  // bytes of `received` after the head the scanner has seen
    size_t discarded = 0;     // closing: bytes read and dropped
    bool probe_only = false;  // admitted over a limit: may only ask for a probe
  };
  using WaitList = std::list<Waiting>;

  void run();
  void take_incoming();
  void add(ConnectionPtr c, bool fresh);
  bool make_room(const std::string& ip);
  bool evict_oldest(const std::string* ip);
  // Reads what arrived; false when the connection was closed or is closing.
  bool receive(WaitList::iterator it);
  void discard(WaitList::iterator it);
  // Advances the request's framing over what was received; false when it was closed.
  bool advance(WaitList::iterator it);
  void expire(std::chrono::steady_clock::time_point now);
  void refuse(WaitList::iterator it, int status, const char* code, const std::string& why);
  void drop(WaitList::iterator it);
  void forget(const Connection& c);
  void wake();

  HttpLimits limits_;
  Metrics* metrics_;
  Dispatch dispatch_;
  int wake_fd_ = -1;
  std::thread thread_;
  bool stopping_ = false;  // under mu_

  mutable std::mutex mu_;
  std::vector<int> new_fds_;               // admitted, not yet looked at by the gate thread
  std::vector<ConnectionPtr> kept_alive_;  // resumed, not yet looked at
  std::map<std::string, int> open_by_ip_;  // every open connection, waiting or served
  int open_ = 0;

  WaitList waiting_;                // the gate thread's alone; oldest first
  size_t buffered_over_small_ = 0;  // bytes beyond 64 KiB per connection, summed
};

}  // namespace perfsage::daemon
