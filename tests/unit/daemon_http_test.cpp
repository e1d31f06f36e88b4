// The HTTP front's parsing of what a client sends before any thread serves it: heads, lengths,
// chunk framing and the probes; its limits in the config; and the daemon log, which must never
// rotate a device away.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "daemon/config.h"
#include "daemon/logging.h"
#include "daemon/request_head.h"
#include "test_support.h"

using namespace perfsage::daemon;

TEST_CASE("a request head is complete at its blank line, with its body's framing") {
  CHECK(parse_request_head("GET /healthz HTTP/1.1\r\nHost: x\r\n", 1024).status ==
        HeadStatus::incomplete);
  auto p = parse_request_head("GET /healthz?x=1 HTTP/1.1\r\nHost: x\r\n\r\nNEXT", 1024);
  REQUIRE(p.status == HeadStatus::complete);
  CHECK(p.head.head_bytes == 38);
  CHECK(p.head.probe());
  CHECK_FALSE(p.head.has_body());
  p = parse_request_head(
      "POST /api/v1/submit HTTP/1.1\r\ncontent-length: 12\r\nExpect: 100-continue\r\n\r\n", 1024);
  REQUIRE(p.status == HeadStatus::complete);
  CHECK(p.head.content_length == 12u);
  CHECK(p.head.expect_continue);
  CHECK_FALSE(p.head.probe());
  p = parse_request_head("POST /x HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n", 1024);
  CHECK(p.head.chunked);
  CHECK(parse_request_head(std::string(2000, 'a'), 1024).status == HeadStatus::too_large);
  // Framings the front refuses: both at once (smuggling), other codings, unclear lengths.
  for (const char* bad :
       {"POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n"}) {
    INFO(bad);
    CHECK(parse_request_head(bad, 1024).status == HeadStatus::bad);
  }
  CHECK_FALSE(parse_request_head("POST /healthz HTTP/1.1\r\n\r\n", 1024).head.probe());
}

TEST_CASE("chunk framing is scanned once, as it arrives, and bounded as sent") {
  const std::string body = "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: t\r\n\r\nNEXT";
  ChunkedScanner whole(1 << 20);
  CHECK(whole.feed(body) == body.size() - 4);
  CHECK(whole.done());
  ChunkedScanner bytewise(1 << 20);
  size_t used = 0;
  for (char c : body) {
    if (bytewise.done()) break;
    used += bytewise.feed(std::string_view(&c, 1));
  }
  CHECK(bytewise.done());
  CHECK(used == body.size() - 4);
  // Over the limit as sent, framing included: many small chunks count their framing too.
  ChunkedScanner small(100);
  std::string many;
  for (int i = 0; i < 30; ++i) many += "1\r\nx\r\n";
  small.feed(many);
  CHECK(small.too_large());
  ChunkedScanner huge(1 << 20);
  huge.feed("ffffffffffffffffffffff\r\n");
  CHECK(huge.too_large());
  for (const char* bad : {"zz\r\n", "3\r\nabcX\r\n", "\r\n"}) {
    ChunkedScanner s(1 << 20);
    s.feed(bad);
    INFO(bad);
    CHECK(s.bad());
    CHECK_FALSE(s.too_large());
  }
  ChunkedScanner endless(1 << 20);
  endless.feed(std::string(5000, '1'));  // a size line without end
  CHECK(endless.bad());
}

TEST_CASE("a log named through a link, a FIFO or a device is appended to, never rotated away") {
  perfsage::test::TempDir dir;
  LogConfig log;
  log.max_bytes = 200;  // rotated after a line or two
  log.max_files = 2;
  auto fill = [&] {
    setup_logging(log);
    for (int i = 0; i < 50; ++i) spdlog::info("line {} of a log that outgrows its size", i);
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("quiet"));  // closes the file
  };
  // A link (as /dev/stdout is): rotating renamed the link itself, and made a file in its place.
  auto real = dir.write("real.log", "");
  log.file = dir.path() / "link.log";
  std::filesystem::create_symlink(real, log.file);
  fill();
  CHECK(std::filesystem::is_symlink(log.file));
  CHECK_FALSE(std::filesystem::exists(std::filesystem::symlink_status(dir.path() / "link.1.log")));
  std::ifstream in(real);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK_THAT(text, Catch::Contains("line 0 of") && Catch::Contains("line 49 of"));
  // A FIFO: its reader gets every line, and it stays a FIFO.
  auto fifo = dir.path() / "log.pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  int rfd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(rfd >= 0);
  log.file = fifo;
  fill();
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(rfd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
  ::close(rfd);
  struct stat st;
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK_THAT(got, Catch::Contains("line 49 of a log"));
}

TEST_CASE("daemon.http is read with units and checked") {
  perfsage::test::TempDir dir;
  auto file = dir.write("perfsaged.yaml",
                        "daemon:\n  http:\n    header_timeout: 500ms\n    body_timeout: 5s\n"
                        "    max_connections: 100\n    max_connections_per_client: 10\n"
                        "    threads: 4\n");
  auto load = read_daemon_config(file);
  REQUIRE(load.problems.empty());
  CHECK(load.config.http.header_timeout == std::chrono::milliseconds(500));
  CHECK(load.config.http.body_timeout == std::chrono::seconds(5));
  CHECK(load.config.http.idle_timeout == std::chrono::seconds(2));  // the default
  CHECK(load.config.http.max_connections == 100);
  CHECK(load.config.http.max_connections_per_client == 10);
  CHECK(load.config.http.threads == 4);
  file = dir.write("bad.yaml",
                   "daemon:\n  http:\n    threads: 0\n    header_timeout: soon\n"
                   "    send_timeout: 0s\n    backlog: 5\n");
  load = read_daemon_config(file);
  std::string all;
  for (const auto& p : load.problems) all += p.str() + "\n";
  CHECK_THAT(all, Catch::Contains("daemon.http.threads") &&
                      Catch::Contains("daemon.http.header_timeout") &&
                      Catch::Contains("longer than 0") && Catch::Contains("backlog"));
}
