// perfsaged against what a hostile or careless client does: a port file that is a FIFO, request
// bodies without end, clients that send a byte every few seconds. A real daemon on loopback;
// every wait is for an event (a byte, a close, an answer), bounded.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>

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
