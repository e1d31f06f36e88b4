// perfsaged against what a hostile or careless client does: a port file that is a FIFO, request
// bodies without end, clients that send a byte every few seconds. A real daemon on loopback;
// every wait is for an event (a byte, a close, an answer), bounded.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <condition_variable>
#include <mutex>

#include "daemon_support.h"

using namespace perfsage::test;
namespace fs = std::filesystem;

namespace {

std::string minimal_config(const fs::path& dir, const std::string& extra = "") {
  fs::create_directories(dir / "watch");
  return "daemon:\n  store: perf.db\n  listen: 127.0.0.1:0\n  workers: 1\n  watch:\n    - path: " +
         (dir / "watch").string() + "\n" + extra;
}

// Reads what arrives on `fd` until the writer closes it, waiting at most `seconds` in all.
std::string read_until_closed(int fd, double seconds) {
  std::string got;
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buf[256];
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

// Kills the process on every way out of a test case (a failed REQUIRE included).
struct Killed {
  pid_t pid;
  ~Killed() {
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
};

}  // namespace

TEST_CASE("--port-file naming a FIFO gets the port through it and stays a FIFO") {
  TempDir dir;
  std::ofstream(dir.path() / "perfsaged.yaml") << minimal_config(dir.path());
  auto fifo = dir.path() / "port.pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  int rfd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(rfd >= 0);
  pid_t pid = spawn_logged({perfsaged_binary().string(), "--config",
                            (dir.path() / "perfsaged.yaml").string(), "--port-file", fifo.string()},
                           dir.path() / "perfsaged.log");
  REQUIRE(pid > 0);
  Killed daemon{pid};
  std::string port = read_until_closed(rfd, 60);
  ::close(rfd);
  struct stat st;
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));  // a rename over it left a regular file, and nothing came through
  INFO("port file said '" << port << "'");
  REQUIRE_FALSE(port.empty());
  httplib::Client c("127.0.0.1", std::stoi(port));
  c.set_read_timeout(30, 0);
  auto r = c.Get("/healthz");
  CHECK((r && r->status == 200));
}

namespace {

int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool send_text(int fd, const std::string& s) {
  return ::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size());
}

// What the daemon says on each of `fds` until it closes them, waiting at most `seconds` in all;
// how many were closed with an answer starting with `prefix` ("" counts every close).
int closed_with(const std::vector<int>& fds, const std::string& prefix, double seconds) {
  std::vector<std::string> said(fds.size());
  std::vector<bool> closed(fds.size(), false);
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    std::vector<pollfd> p;
    std::vector<size_t> index;
    for (size_t i = 0; i < fds.size(); ++i)
      if (!closed[i]) p.push_back({fds[i], POLLIN, 0}), index.push_back(i);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (p.empty() || left.count() <= 0) break;
    if (::poll(p.data(), p.size(), static_cast<int>(left.count())) <= 0) break;
    for (size_t k = 0; k < p.size(); ++k) {
      if (!p[k].revents) continue;
      char buf[4096];
      ssize_t n = ::recv(p[k].fd, buf, sizeof buf, 0);
      if (n > 0)
        said[index[k]].append(buf, static_cast<size_t>(n));
      else
        closed[index[k]] = true;  // the end, or reset
    }
  }
  int n = 0;
  for (size_t i = 0; i < fds.size(); ++i) n += closed[i] && said[i].rfind(prefix, 0) == 0;
  return n;
}

// Clients that send a request a little at a time, one piece every `pace`, on `n` connections,
// from a thread of their own, until the daemon closes each connection or stop() is called.
class SlowClients {
 public:
  SlowClients(int port, int n, std::string first, std::string piece, std::chrono::milliseconds pace)
      : piece_(std::move(piece)), pace_(pace) {
    for (int i = 0; i < n; ++i) {
      int fd = connect_to(port);
      REQUIRE(fd >= 0);
      REQUIRE(send_text(fd, first));
      fds_.push_back(fd);
    }
    thread_ = std::thread([this] { trickle(); });
  }
  ~SlowClients() {
    stop();
    for (int fd : fds_) ::close(fd);
  }
  void stop() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  const std::vector<int>& fds() const { return fds_; }

 private:
  void trickle() {
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, pace_, [&] { return stop_; }))
      for (int fd : fds_) (void)::send(fd, piece_.data(), piece_.size(), MSG_NOSIGNAL);
  }
  std::string piece_;
  std::chrono::milliseconds pace_;
  std::vector<int> fds_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// A GET on a fresh connection, answered within `seconds` or not at all (status 0).
int status_of(int port, const std::string& path, double seconds = 20) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(static_cast<time_t>(seconds), 0);
  c.set_read_timeout(static_cast<time_t>(seconds), 0);
  auto r = c.Get(path);
  return r ? r->status : 0;
}

// The daemon's count of open connections, the one asking included (-1 when it does not say).
int open_connections(const DaemonProcess& d) {
  const std::string text = d.get("/metrics").body, name = "\nperfsage_http_connections ";
  auto at = text.find(name);
  return at == std::string::npos ? -1 : std::atoi(text.c_str() + at + name.size());
}

long peak_rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

}  // namespace

TEST_CASE("a chunked body is cut off at 1 MiB, with a valid token too") {
  TempDir dir;
  DaemonProcess d(dir.path(), minimal_config(dir.path(), "  token: s3cret-token\n"));
  REQUIRE(d.start());
  const long rss_before = peak_rss_kib(d.pid());
  int fd = connect_to(d.port());
  REQUIRE(fd >= 0);
  REQUIRE(send_text(fd,
                    "POST /api/v1/submit HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret-token"
                    "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"));
  // 64 KiB chunks until the daemon answers or drops the connection, at most 96 MiB.
  const std::string chunk = "10000\r\n" + std::string(0x10000, ' ') + "\r\n";
  size_t sent = 0;
  std::string answer;
  while (sent < (96u << 20)) {
    pollfd p{fd, POLLIN | POLLOUT, 0};
    REQUIRE(::poll(&p, 1, 30000) > 0);
    if (p.revents & (POLLIN | POLLERR | POLLHUP)) {
      answer = read_until_closed(fd, 30);
      break;
    }
    ssize_t n = ::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno != EAGAIN) break;  // reset by the daemon
    if (n > 0) sent += static_cast<size_t>(n);
  }
  ::close(fd);
  INFO("sent " << sent << " bytes; answer: " << answer.substr(0, 300));
  CHECK(sent < (48u << 20));  // it read all 96 MiB before, and would have read more
  CHECK_THAT(answer, Catch::StartsWith("HTTP/1.1 413"));  // read before the connection closes
  CHECK(peak_rss_kib(d.pid()) - rss_before < 64 * 1024);
  // A Content-Length over the limit is refused before its body is sent.
  fd = connect_to(d.port());
  REQUIRE(send_text(fd,
                    "POST /api/v1/submit HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                    "s3cret-token\r\nContent-Length: 1073741824\r\n\r\n"));
  CHECK(closed_with({fd}, "HTTP/1.1 413", 30) == 1);
  ::close(fd);
  // Bodies within the limit are still served, chunked or not.
  httplib::Client c("127.0.0.1", d.port());
  c.set_bearer_token_auth("s3cret-token");
  c.set_read_timeout(30, 0);
  auto r = c.Post("/api/v1/packs/reload", "{}", "application/json");
  CHECK((r && r->status == 202));
  CHECK(d.alive());
}

TEST_CASE("clients sending a header line every few seconds cannot keep /healthz from answering") {
  TempDir dir;
  DaemonProcess d(dir.path(), minimal_config(dir.path(), "  http: {header_timeout: 3s}\n"));
  REQUIRE(d.start());
  // More connections than the server had threads, each a header line every second: before, each
  // held a thread (its read timeout restarted with every byte) and /healthz waited forever.
  SlowClients slow(d.port(), 40, "GET /api/v1/status HTTP/1.1\r\nHost: x\r\n", "X-Slow: 1\r\n",
                   std::chrono::milliseconds(1000));
  CHECK(status_of(d.port(), "/healthz") == 200);
  CHECK(status_of(d.port(), "/readyz") == 200);
  CHECK(status_of(d.port(), "/api/v1/status") == 200);
  // Each slow request is answered 408 once its headers are 3 s late, and closed.
  CHECK(closed_with(slow.fds(), "HTTP/1.1 408", 60) == 40);
}

TEST_CASE("a body sent a byte at a time is cut off, and the API answers meanwhile") {
  TempDir dir;
  DaemonProcess d(dir.path(), minimal_config(dir.path(), "  http: {body_timeout: 3s}\n"));
  REQUIRE(d.start());
  SlowClients slow(d.port(), 40,
                   "POST /api/v1/submit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                   "Content-Length: 1000\r\n\r\n{",
                   " ", std::chrono::milliseconds(1000));
  CHECK(status_of(d.port(), "/healthz") == 200);
  CHECK(status_of(d.port(), "/api/v1/status") == 200);
  CHECK(closed_with(slow.fds(), "HTTP/1.1 408", 60) == 40);
}

TEST_CASE("connections per client are limited; the longest waiting goes, probes still answer") {
  TempDir dir;
  DaemonProcess d(dir.path(), minimal_config(dir.path(),
                                             "  http: {max_connections_per_client: 8, "
                                             "max_connections: 12, header_timeout: 60s}\n"));
  REQUIRE(d.start());
  // The probes of start() are gone (so that the oldest connection below is the test's own).
  REQUIRE(eventually(30, [&] { return open_connections(d) == 1; }));
  // Eight connections that never finish a request, then more: each new one closes the oldest.
  std::vector<int> idle;
  for (int i = 0; i < 8; ++i) {
    idle.push_back(connect_to(d.port()));
    REQUIRE(send_text(idle.back(), "GET / HTTP/1.1\r\n"));
  }
  int extra = connect_to(d.port());
  REQUIRE(send_text(extra, "GET / HTTP/1.1\r\n"));
  CHECK(closed_with({idle[0]}, "", 30) == 1);  // closed without a word: the longest waiting
  CHECK(status_of(d.port(), "/healthz") == 200);
  CHECK(status_of(d.port(), "/api/v1/status") == 200);
  for (int fd : idle) ::close(fd);
  ::close(extra);
}
