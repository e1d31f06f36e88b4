#include "daemon/request_head.h"

#include <strings.h>

#include <charconv>

namespace perfsage::daemon {
namespace {

constexpr size_t kMaxFramingLine = 4096;  // a chunk-size line or a trailer line

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool same(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

std::optional<uint64_t> decimal(std::string_view s) {
  uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

HeadParse bad(std::string why) {
  HeadParse p;
  p.status = HeadStatus::bad;
  p.why = std::move(why);
  return p;
}

}  // namespace

bool RequestHead::probe() const {
  return (method == "GET" || method == "HEAD") && (path == "/healthz" || path == "/readyz");
}

HeadParse parse_request_head(std::string_view bytes, size_t max_head) {
  size_t end = bytes.substr(0, max_head).find("\r\n\r\n");
  if (end == std::string_view::npos) {
    HeadParse p;
    p.status = bytes.size() >= max_head ? HeadStatus::too_large : HeadStatus::incomplete;
    return p;
  }
  HeadParse p;
  p.status = HeadStatus::complete;
  auto& h = p.head;
  h.head_bytes = end + 4;
  std::string_view head = bytes.substr(0, end + 2);  // each line ends with CRLF
  size_t eol = head.find("\r\n");
  std::string_view request_line = head.substr(0, eol);
  size_t sp1 = request_line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : request_line.find(' ', sp1 + 1);
  if (sp2 != std::string_view::npos) {
    h.method = std::string(request_line.substr(0, sp1));
    std::string_view target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
    h.path = std::string(target.substr(0, target.find('?')));
  }  // else httplib answers 400 for the request line itself
  bool has_transfer_encoding = false;
  for (size_t at = eol + 2; at < head.size();) {
    size_t next = head.find("\r\n", at);
    std::string_view line = head.substr(at, next - at);
    at = next + 2;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;  // httplib skips such lines too
    std::string_view name = line.substr(0, colon), value = trim(line.substr(colon + 1));
    if (same(name, "Content-Length")) {
      auto n = decimal(value);
      if (!n) return bad("Content-Length is not a number");
      if (h.content_length && *h.content_length != *n)
        return bad("two different Content-Length headers");
      h.content_length = n;
    } else if (same(name, "Transfer-Encoding")) {
      if (has_transfer_encoding || !same(value, "chunked"))
        return bad("the only Transfer-Encoding accepted is one \"chunked\"");
      has_transfer_encoding = h.chunked = true;
    } else if (same(name, "Expect")) {
      h.expect_continue = same(value, "100-continue");
    }
  }
  // Both framings at once is how requests are smuggled past proxies: refused.
  if (h.chunked && h.content_length) return bad("both Content-Length and Transfer-Encoding");
  return p;
}

size_t ChunkedScanner::feed(std::string_view more) {
  size_t i = 0;
  while (i < more.size() && state_ != State::end && state_ != State::bad) {
    char c = more[i];
    switch (state_) {
      case State::data: {
        uint64_t take = std::min<uint64_t>(left_, more.size() - i);
        left_ -= take;
        i += static_cast<size_t>(take);
        scanned_ += take;
        if (left_ == 0) state_ = State::data_cr;
        break;
      }
      case State::data_cr:
      case State::data_lf:
        if (c != (state_ == State::data_cr ? '\r' : '\n')) {
          state_ = State::bad;
          break;
        }
        state_ = state_ == State::data_cr ? State::data_lf : State::size_line;
        ++i, ++scanned_;
        break;
      default:  // size_line, trailer_line
        ++i, ++scanned_;
        if (c == '\n') {
          end_of_line();
        } else if (line_.size() >= kMaxFramingLine) {
          state_ = State::bad;
        } else {
          line_ += c;
        }
    }
    if (scanned_ > max_bytes_) {
      too_large_ = true;
      state_ = State::bad;
    }
  }
  return i;
}

void ChunkedScanner::end_of_line() {
  std::string_view line = line_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (state_ == State::trailer_line) {
    if (line.empty()) state_ = State::end;  // else one more trailer field
    line_.clear();
    return;
  }
  // chunk-size [; extensions]
  uint64_t size = 0;
  auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), size, 16);
  if (end == line.data() || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    state_ = State::bad;
  } else if (ec == std::errc::result_out_of_range || size > max_bytes_) {
    too_large_ = true;
    state_ = State::bad;
  } else {
    left_ = size;
    state_ = size == 0 ? State::trailer_line : State::data;
  }
  line_.clear();
}

}  // namespace perfsage::daemon
