#include "store/run_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "store/database.h"

namespace perfsage::store {
namespace {

// One of 2^20 bytes: different inputs rarely share one (and then only wait for each other).
off_t byte_of(std::string_view fingerprint) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : fingerprint) h = (h ^ c) * 1099511628211ull;
  return static_cast<off_t>(h & ((1u << 20) - 1));
}

struct flock lock_request(short type, off_t byte) {
  struct flock fl;
  std::memset(&fl, 0, sizeof fl);
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = byte;
  fl.l_len = 1;
  return fl;
}

}  // namespace

std::string RunLock::lock_file(const std::string& store_path) {
  return store_path + "-lock";
}

RunLock::RunLock(const std::string& store_path, std::string_view fingerprint,
                 const std::function<void()>& on_wait) {
  if (store_path.empty() || store_path == ":memory:") return;
  int fd = ::open(lock_file(store_path).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  // Open-file-description locks belong to this descriptor, not to the process: a second
  // RunLock in the same process (a daemon's other worker) waits as another process would, and
  // closing some other descriptor of the file does not drop it.
  auto fl = lock_request(F_WRLCK, byte_of(fingerprint));
  if (::fcntl(fd, F_OFD_SETLK, &fl) != 0) {
    if (errno != EAGAIN && errno != EACCES) {
      ::close(fd);
      return;
    }
    if (on_wait) on_wait();
    fl = lock_request(F_WRLCK, byte_of(fingerprint));
    while (::fcntl(fd, F_OFD_SETLKW, &fl) != 0) {
      if (errno != EINTR) {
        int e = errno;
        ::close(fd);
        throw StoreError("store " + store_path + ": cannot lock " + lock_file(store_path) + ": " +
                         std::strerror(e));
      }
    }
  }
  fd_ = fd;
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the description releases its lock
}

}  // namespace perfsage::store
