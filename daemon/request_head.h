// What the connection front (daemon/connection_gate.h) must know of an HTTP request before a
// thread serves it: where its head ends, how its body is framed (a Content-Length, or chunks
// whose framing is scanned as the bytes arrive) and whether it is a health probe. Pure
// functions over the bytes received; httplib parses the same bytes again when it serves them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perfsage::daemon {

struct RequestHead {
  std::string method, path;  // the path without its query
  size_t head_bytes = 0;     // through the blank line that ends the head
  std::optional<uint64_t> content_length;
  bool chunked = false;  // Transfer-Encoding: chunked
  bool expect_continue = false;
  bool has_body() const { return chunked || content_length.value_or(0) > 0; }
  // GET or HEAD of /healthz or /readyz: served by threads of their own.
  bool probe() const;
};

enum class HeadStatus {
  incomplete,  // no blank line yet
  complete,
  too_large,  // no blank line within the limit
  bad,        // a framing the front refuses (conflicting lengths, unknown codings)
};

struct HeadParse {
  HeadStatus status = HeadStatus::incomplete;
  RequestHead head;
  std::string why;  // when bad
};

// Looks for a complete head at the start of `bytes`; heads longer than `max_head` are too_large.
HeadParse parse_request_head(std::string_view bytes, size_t max_head);

// The framing of a chunked body, fed as its bytes arrive: chunk sizes, data and CRLFs, the last
// chunk and the trailer lines up to the blank line. Every byte is looked at once.
class ChunkedScanner {
 public:
  explicit ChunkedScanner(uint64_t max_bytes) : max_bytes_(max_bytes) {}
  // Scans `more`; returns how many of its bytes belong to the body (all of them until the end
  // is found).
  size_t feed(std::string_view more);
  bool done() const { return state_ == State::end; }
  bool bad() const { return state_ == State::bad; }
  // The body as sent (framing included) is over `max_bytes`.
  bool too_large() const { return too_large_; }
  uint64_t scanned() const { return scanned_; }

 private:
  enum class State { size_line, data, data_cr, data_lf, trailer_line, end, bad };
  void end_of_line();
  State state_ = State::size_line;
  std::string line_;
  uint64_t left_ = 0;  // data bytes left in the chunk
  uint64_t scanned_ = 0;
  uint64_t max_bytes_;
  bool too_large_ = false;
};

}  // namespace perfsage::daemon
