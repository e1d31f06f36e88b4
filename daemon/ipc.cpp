#include "daemon/ipc.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace perfsage::daemon {

bool write_message(int fd, const google::protobuf::MessageLite& msg) {
  std::string bytes;
  auto size = static_cast<uint32_t>(msg.ByteSizeLong());
  bytes.reserve(4 + size);
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((size >> (8 * i)) & 0xff));
  if (!msg.AppendToString(&bytes)) return false;
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, 1000);
    } else {
      return false;
    }
  }
  return true;
}

bool MessageReader::next(google::protobuf::MessageLite& out) {
  if (bad_ || buf_.size() < 4) return false;
  uint32_t size = 0;
  for (int i = 0; i < 4; ++i)
    size |= static_cast<uint32_t>(static_cast<unsigned char>(buf_[i])) << (8 * i);
  if (size > kMaxIpcMessage) {
    bad_ = true;
    return false;
  }
  if (buf_.size() < 4 + size) return false;
  bool ok = out.ParseFromArray(buf_.data() + 4, static_cast<int>(size));
  buf_.erase(0, 4 + size);
  if (!ok) bad_ = true;
  return ok;
}

MessageReader::Status MessageReader::read(int fd, google::protobuf::MessageLite& out) {
  if (next(out)) return Status::message;
  if (bad_) return Status::error;
  char chunk[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      buf_.append(chunk, static_cast<size_t>(n));
      if (next(out)) return Status::message;
      if (bad_) return Status::error;
      continue;
    }
    if (n == 0) return Status::closed;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Status::again;
    return Status::error;
  }
}

}  // namespace perfsage::daemon
