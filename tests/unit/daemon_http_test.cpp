// The HTTP front's parsing of what a client sends before any thread serves it: heads, lengths,
// chunk framing and the probes.
#include <catch2/catch.hpp>

#include "daemon/request_head.h"

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
