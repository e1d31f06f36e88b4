#include "daemon/connection_gate.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

#include "daemon/http_util.h"

namespace perfsage::daemon {
namespace {

using Clock = std::chrono::steady_clock;

// Connections admitted over a limit that may still ask for a probe; beyond, the oldest goes.
constexpr size_t kMaxProbeOnly = 8;
// Every connection may hold 64 KiB received; what all hold beyond that is bounded together.
constexpr size_t kSmallRequest = 64u << 10;
constexpr size_t kMaxBufferedTotal = 64u << 20;
constexpr size_t kMaxReceived = kMaxRequestHead + kMaxRequestBody + (16u << 10);
// After an error answer, what the client still sends (the rest of a body too large) is read and
// dropped, so that the client can finish sending and read the answer: until it is quiet for
// kLingerQuiet, kLinger in all, or kMaxDiscarded bytes.
constexpr std::chrono::seconds kLingerQuiet{2};
constexpr std::chrono::seconds kLinger{30};
constexpr size_t kMaxDiscarded = 8u << 20;

size_t excess(size_t bytes) {
  return bytes > kSmallRequest ? bytes - kSmallRequest : 0;
}

std::string seconds(std::chrono::milliseconds d) {
  auto ms = d.count();
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

const char* reason_phrase(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 408:
      return "Request Timeout";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    default:
      return "Service Unavailable";
  }
}

}  // namespace

void socket_address(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  char text[INET6_ADDRSTRLEN] = "?";
  port = 0;
  auto* a = reinterpret_cast<sockaddr*>(&addr);
  if ((peer ? ::getpeername(fd, a, &len) : ::getsockname(fd, a, &len)) == 0) {
    if (addr.ss_family == AF_INET) {
      auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
      ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
      port = ntohs(v4->sin_port);
    } else if (addr.ss_family == AF_INET6) {
      auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
      ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
      port = ntohs(v6->sin6_port);
    }
  }
  ip = text;
}

Connection::~Connection() {
  if (fd >= 0) ::close(fd);
}

ConnectionGate::ConnectionGate(const HttpLimits& limits, Metrics* metrics, Dispatch dispatch)
    : limits_(limits), metrics_(metrics), dispatch_(std::move(dispatch)) {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) throw std::runtime_error("cannot create an eventfd for the HTTP gate");
}

ConnectionGate::~ConnectionGate() {
  stop();
  ::close(wake_fd_);
}

void ConnectionGate::start() {
  thread_ = std::thread([this] { run(); });
}

void ConnectionGate::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake();
  if (thread_.joinable()) thread_.join();
}

void ConnectionGate::wake() {
  uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof one);
}

void ConnectionGate::admit(int fd) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      new_fds_.push_back(fd);
      fd = -1;
    }
  }
  if (fd >= 0) ::close(fd);
  wake();
}

void ConnectionGate::resume(ConnectionPtr c) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      kept_alive_.push_back(std::move(c));
    }
  }
  if (c) return close(std::move(c));
  wake();
}

void ConnectionGate::close(ConnectionPtr c) {
  forget(*c);
}  // the socket closes with the connection

void ConnectionGate::forget(const Connection& c) {
  std::lock_guard lock(mu_);
  --open_;
  auto it = open_by_ip_.find(c.peer_ip);
  if (it != open_by_ip_.end() && --it->second <= 0) open_by_ip_.erase(it);
}

int ConnectionGate::open_connections() const {
  std::lock_guard lock(mu_);
  return open_;
}

void ConnectionGate::run() {
  std::vector<pollfd> fds;
  std::vector<WaitList::iterator> at;
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (stopping_) break;
    }
    take_incoming();
    auto now = Clock::now();
    expire(now);
    fds.assign(1, pollfd{wake_fd_, POLLIN, 0});
    at.clear();
    auto next = now + std::chrono::seconds(1);
    for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
      fds.push_back(pollfd{it->conn->fd, POLLIN, 0});
      at.push_back(it);
      next = std::min(next, it->deadline);
    }
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1;
    int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(wait, 0)));
    if (ready <= 0) continue;
    if (fds[0].revents) {
      uint64_t n;
      [[maybe_unused]] auto r = ::read(wake_fd_, &n, sizeof n);
    }
    for (size_t i = 1; i < fds.size(); ++i)
      if (fds[i].revents && receive(at[i - 1])) advance(at[i - 1]);
  }
  while (!waiting_.empty()) drop(waiting_.begin());
  std::lock_guard lock(mu_);
  for (int fd : new_fds_) ::close(fd);
  new_fds_.clear();
  kept_alive_.clear();  // closed uncounted: the gate is stopping
}

void ConnectionGate::take_incoming() {
  std::vector<int> fresh;
  std::vector<ConnectionPtr> kept;
  {
    std::lock_guard lock(mu_);
    fresh.swap(new_fds_);
    kept.swap(kept_alive_);
  }
  for (auto& c : kept) add(std::move(c), false);
  for (int fd : fresh) {
    auto c = std::make_unique<Connection>(fd);
    socket_address(fd, true, c->peer_ip, c->peer_port);
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    add(std::move(c), true);
  }
}

// Makes room for one more connection from `ip` by closing the longest waiting one (of that
// client when the client is at its limit). False when every candidate is being served.
bool ConnectionGate::make_room(const std::string& ip) {
  bool client_full, total_full;
  {
    std::lock_guard lock(mu_);
    auto it = open_by_ip_.find(ip);
    client_full = it != open_by_ip_.end() && it->second >= limits_.max_connections_per_client;
    total_full = open_ >= limits_.max_connections;
  }
  if (client_full && !evict_oldest(&ip)) return false;
  if (total_full && !evict_oldest(nullptr)) return false;
  return true;
}

bool ConnectionGate::evict_oldest(const std::string* ip) {
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    if (it->probe_only || (ip && it->conn->peer_ip != *ip)) continue;
    metrics_->add("perfsage_http_refused_total", 1, {{"reason", "evicted"}});
    drop(it);
    return true;
  }
  return false;
}

void ConnectionGate::add(ConnectionPtr c, bool fresh) {
  auto now = Clock::now();
  bool probe_only = false;
  if (fresh) {
    if (!make_room(c->peer_ip)) {
      probe_only = true;
      size_t held = 0;
      for (const auto& w : waiting_) held += w.probe_only;
      for (auto it = waiting_.begin(); held >= kMaxProbeOnly && it != waiting_.end(); ++it)
        if (it->probe_only) {
          drop(it);
          break;
        }
    }
    std::lock_guard lock(mu_);
    ++open_;
    ++open_by_ip_[c->peer_ip];
  }
  c->request.clear();
  c->probe = c->continue_sent = false;
  Waiting w;
  w.since = now;
  // A kept-alive connection with nothing of its next request waits `idle_timeout`.
  w.deadline =
      now + (!fresh && c->received.empty() ? limits_.idle_timeout : limits_.header_timeout);
  w.probe_only = probe_only;
  buffered_over_small_ += excess(c->received.size());
  w.conn = std::move(c);
  waiting_.push_back(std::move(w));
  auto it = std::prev(waiting_.end());
  if (!it->conn->received.empty()) advance(it);  // pipelined: perhaps complete already
}

void ConnectionGate::discard(WaitList::iterator it) {
  char buf[16384];
  for (;;) {
    ssize_t n = ::recv(it->conn->fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    it->discarded += n > 0 ? static_cast<size_t>(n) : 0;
    if (n <= 0 || it->discarded > kMaxDiscarded) return drop(it);
  }
  it->deadline = std::min(it->since + kLinger, Clock::now() + kLingerQuiet);
}

bool ConnectionGate::receive(WaitList::iterator it) {
  if (it->phase == Phase::closing) {
    discard(it);
    return false;
  }
  auto& c = *it->conn;
  const bool was_empty = c.received.empty();
  // A head is looked at once it may be complete; a body is read up to its end at most.
  const size_t cap = it->phase == Phase::head ? kMaxRequestHead : kMaxReceived;
  char buf[16384];
  while (c.received.size() < cap) {
    size_t room = std::min(sizeof buf, cap - c.received.size());
    ssize_t n = ::recv(c.fd, buf, room, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0) {  // closed by the client, or broken
      drop(it);
      return false;
    }
    size_t before = excess(c.received.size());
    size_t after = excess(c.received.size() + static_cast<size_t>(n));
    if (buffered_over_small_ - before + after > kMaxBufferedTotal) {
      refuse(it, 503, "unavailable", "the daemon is receiving too many large requests; retry");
      return false;
    }
    buffered_over_small_ += after - before;
    c.received.append(buf, static_cast<size_t>(n));
  }
  // The first byte of a kept-alive connection's next request: now its head has a deadline.
  if (was_empty && !c.received.empty() && it->phase == Phase::head)
    it->deadline = Clock::now() + limits_.header_timeout;
  return true;
}

bool ConnectionGate::advance(WaitList::iterator it) {
  auto& w = *it;
  auto& c = *w.conn;
  if (w.phase == Phase::head) {
    auto parse = parse_request_head(c.received, kMaxRequestHead);
    if (parse.status == HeadStatus::incomplete) return true;
    if (parse.status == HeadStatus::too_large) {
      refuse(it, 431, "headers_too_large", "the request's headers are larger than 64 KiB");
      return false;
    }
    if (parse.status == HeadStatus::bad) {
      refuse(it, 400, "bad_request", parse.why);
      return false;
    }
    w.head = std::move(parse.head);
    if (w.probe_only && !w.head.probe()) {
      refuse(it, 503, "unavailable",
             "too many connections; only /healthz and /readyz are answered on this one");
      return false;
    }
    if (w.head.content_length.value_or(0) > kMaxRequestBody) {
      refuse(it, 413, "payload_too_large", "the request body is larger than 1 MiB");
      return false;
    }
    if (w.head.has_body()) {
      w.phase = Phase::body;
      w.deadline = Clock::now() + limits_.body_timeout;
      if (w.head.expect_continue && c.received.size() == w.head.head_bytes) {
        static constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
        c.continue_sent =
            ::send(c.fd, kContinue, sizeof kContinue - 1, MSG_DONTWAIT | MSG_NOSIGNAL) > 0;
      }
    }
  }
  size_t end = w.head.head_bytes;
  if (w.head.content_length) {
    end += static_cast<size_t>(*w.head.content_length);
    if (c.received.size() < end) return true;
  } else if (w.head.chunked) {
    std::string_view rest(c.received);
    w.body_scanned += w.chunks.feed(rest.substr(w.head.head_bytes + w.body_scanned));
    if (w.chunks.too_large()) {
      refuse(it, 413, "payload_too_large",
             "the request body is larger than 1 MiB (as sent, chunk framing included)");
      return false;
    }
    if (w.chunks.bad()) {
      refuse(it, 400, "bad_request", "the chunked body's framing is broken");
      return false;
    }
    if (!w.chunks.done()) return true;
    end += w.body_scanned;
  }
  // Whole: to a thread, with what follows it kept for the connection's next request.
  buffered_over_small_ -= excess(c.received.size());
  auto conn = std::move(w.conn);
  conn->request = conn->received.substr(0, end);
  conn->received.erase(0, end);
  conn->probe = w.head.probe();
  waiting_.erase(it);
  dispatch_(std::move(conn));
  return false;
}

void ConnectionGate::expire(Clock::time_point now) {
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    auto next = std::next(it);
    if (it->deadline <= now) {
      if (it->phase == Phase::closing) {
        drop(it);
      } else if (it->phase == Phase::body) {
        refuse(it, 408, "request_timeout",
               "the request body did not arrive within " + seconds(limits_.body_timeout));
      } else if (!it->conn->received.empty()) {
        refuse(it, 408, "request_timeout",
               "the request's headers did not arrive within " + seconds(limits_.header_timeout));
      } else {
        drop(it);  // idle, or never said anything: closed without a word
      }
    }
    it = next;
  }
}

void ConnectionGate::refuse(WaitList::iterator it, int status, const char* code,
                            const std::string& why) {
  metrics_->add("perfsage_http_refused_total", 1, {{"reason", code}});
  std::string body = "{\"code\":\"" + std::string(code) + "\",\"message\":" + json_quote(why) + "}";
  std::string text =
      "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\nConnection: close\r\n\r\n" + body;
  // Best effort, never waiting: a client that does not read its answer gets none.
  [[maybe_unused]] auto n =
      ::send(it->conn->fd, text.data(), text.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  ::shutdown(it->conn->fd, SHUT_WR);
  buffered_over_small_ -= excess(it->conn->received.size());
  it->conn->received.clear();
  it->conn->received.shrink_to_fit();
  it->phase = Phase::closing;
  it->since = Clock::now();
  it->deadline = it->since + kLingerQuiet;
}

void ConnectionGate::drop(WaitList::iterator it) {
  buffered_over_small_ -= excess(it->conn->received.size());
  close(std::move(it->conn));
  waiting_.erase(it);
}

}  // namespace perfsage::daemon
