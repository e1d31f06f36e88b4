// Length-prefixed protobuf messages over a stream socket or pipe: a 4-byte little-endian size,
// then the bytes. Readers are non-blocking and keep partial messages between calls.
#pragma once

#include <google/protobuf/message_lite.h>

#include <cstdint>
#include <optional>
#include <string>

namespace perfsage::daemon {

constexpr uint32_t kMaxIpcMessage = 64u << 20;

// Writes one whole message, retrying on EINTR and partial writes (blocking fd or not: a full
// non-blocking fd is waited on with poll). False when the other end is gone.
bool write_message(int fd, const google::protobuf::MessageLite& msg);

class MessageReader {
 public:
  enum class Status { message, again, closed, error };
  // Reads what is available; returns `message` with `out` filled when one is complete.
  Status read(int fd, google::protobuf::MessageLite& out);
  // Parses a message already buffered, without reading.
  bool next(google::protobuf::MessageLite& out);

 private:
  std::string buf_;
  bool bad_ = false;
};

}  // namespace perfsage::daemon
