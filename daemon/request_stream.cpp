#include "daemon/request_stream.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace perfsage::daemon {

RequestStream::RequestStream(const Connection& c,
                             std::chrono::steady_clock::time_point send_deadline)
    : c_(c), deadline_(send_deadline), swallow_continue_(c.continue_sent) {}

ssize_t RequestStream::read(char* ptr, size_t size) {
  size_t n = std::min(size, c_.request.size() - at_);
  std::memcpy(ptr, c_.request.data() + at_, n);
  at_ += n;
  return static_cast<ssize_t>(n);  // 0 past the request: the next one is not this one's
}

int RequestStream::wait_writable() const {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline_ - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return 0;
    pollfd p{c_.fd, POLLOUT, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r != 0) return r;
  }
}

bool RequestStream::is_writable() const {
  return wait_writable() > 0;
}

ssize_t RequestStream::write(const char* ptr, size_t size) {
  // The gate already answered "Expect: 100-continue"; httplib would say it a second time.
  static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
  if (swallow_continue_ && std::string_view(ptr, size) == kContinue) {
    swallow_continue_ = false;
    return static_cast<ssize_t>(size);
  }
  for (;;) {
    ssize_t n = ::send(c_.fd, ptr, size, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    if ((errno == EAGAIN || errno == EWOULDBLOCK) && wait_writable() > 0) continue;
    failed_ = true;
    return -1;
  }
}

void RequestStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip = c_.peer_ip;
  port = c_.peer_port;
}

void RequestStream::get_local_ip_and_port(std::string& ip, int& port) const {
  socket_address(c_.fd, false, ip, port);
}

}  // namespace perfsage::daemon
