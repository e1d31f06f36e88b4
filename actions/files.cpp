#include "actions/files.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>

namespace perfsage::actions {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const fs::path& file, const char* what) {
  throw std::runtime_error(file.string() + ": " + what + ": " + std::strerror(errno));
}

class Fd {
 public:
  Fd(const fs::path& p, int flags, mode_t mode = 0644) : fd_(::open(p.c_str(), flags, mode)) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

struct DigestDeleter {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new()) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) {
      throw std::runtime_error("SHA-256 is not available (OpenSSL)");
    }
  }
  void add(const void* data, size_t n) { EVP_DigestUpdate(ctx_.get(), data, n); }
  std::string hex() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx_.get(), md, &len);
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
      out += digits[md[i] >> 4];
      out += digits[md[i] & 15];
    }
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, DigestDeleter> ctx_;
};

void fsync_dir(const fs::path& dir) {
  Fd fd(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd.get() < 0 || ::fsync(fd.get()) != 0) fail(dir, "cannot sync the folder");
}

// A name in the target's folder that nothing uses yet.
fs::path temp_name(const fs::path& target) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".tmp-%d-%016llx", static_cast<int>(::getpid()),
                static_cast<unsigned long long>(rng()));
  std::string name = ".";
  name.append(target.filename().string()).append(suffix);
  return target.parent_path() / name;
}

void write_all(int fd, const fs::path& file, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail(file, "cannot write");
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
}

fs::path folder_of(const fs::path& target) {
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir.string() + ": cannot create the folder: " + ec.message());
  return dir;
}

// Only a regular file, a link or nothing is ever renamed over. A rename over a device, a FIFO or
// a socket replaces it with a regular file (over /dev/null it leaves the machine without one),
// and a folder cannot be replaced by a file.
void check_replaceable(const fs::path& target) {
  struct stat st;
  if (::lstat(target.c_str(), &st) != 0) return;  // nothing there: created
  if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) return;
  throw std::runtime_error(target.string() +
                           (S_ISDIR(st.st_mode)
                                ? ": is a folder"
                                : ": exists and is not a regular file (a device, FIFO or "
                                  "socket); it is not replaced"));
}

// The name a chain of links ends at (the name itself when it is no link); a dangling link ends
// at the name it points to, which is then created.
fs::path link_destination(fs::path p) {
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return p;
    fs::path to = fs::read_symlink(p, ec);
    if (ec) return p;
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  return p;  // a loop: its last link is replaced, never what it names
}

// Renames the finished temporary file over the target and syncs the folder (the rename itself
// is durable only once the folder is).
void move_into_place(const fs::path& tmp, const fs::path& target, const fs::path& dir) {
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    int saved = errno;
    ::unlink(tmp.c_str());
    errno = saved;
    fail(target, "cannot rename the temporary file into place");
  }
  fsync_dir(dir);
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.add(bytes.data(), bytes.size());
  return h.hex();
}

std::string sha256_file(const fs::path& file) {
  Fd fd(file, O_RDONLY | O_CLOEXEC);
  if (fd.get() < 0) fail(file, "cannot open");
  Sha256 h;
  std::vector<char> buf(1 << 20);
  for (;;) {
    ssize_t r = ::read(fd.get(), buf.data(), buf.size());
    if (r < 0) {
      if (errno == EINTR) continue;
      fail(file, "cannot read");
    }
    if (r == 0) break;
    h.add(buf.data(), static_cast<size_t>(r));
  }
  return h.hex();
}

void write_file_atomic(const fs::path& target, std::string_view bytes) {
  check_replaceable(target);
  fs::path dir = folder_of(target);
  fs::path tmp = temp_name(target);
  {
    Fd fd(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC);
    if (fd.get() < 0) fail(tmp, "cannot create");
    try {
      write_all(fd.get(), tmp, bytes.data(), bytes.size());
      if (::fsync(fd.get()) != 0) fail(tmp, "cannot sync");
    } catch (...) {
      ::unlink(tmp.c_str());
      throw;
    }
    if (::close(fd.release()) != 0) {
      ::unlink(tmp.c_str());
      fail(tmp, "cannot close");
    }
  }
  move_into_place(tmp, target, dir);
}

void write_user_file(const fs::path& target, std::string_view bytes) {
  struct stat st;
  if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    // A device, a FIFO or a socket, perhaps through a link (/dev/stdout): written through as a
    // shell's `>` would, never replaced; there is nothing to sync or to make atomic.
    Fd fd(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd.get() < 0) fail(target, "cannot open");
    write_all(fd.get(), target, bytes.data(), bytes.size());
    if (::close(fd.release()) != 0) fail(target, "cannot close");
    return;
  }
  write_file_atomic(link_destination(target), bytes);
}

void link_file_atomic(const fs::path& source, const fs::path& target) {
  check_replaceable(target);
  fs::path dir = folder_of(target);
  fs::path tmp = temp_name(target);
  if (::link(source.c_str(), tmp.c_str()) != 0) {
    if (errno != EXDEV && errno != EPERM && errno != EMLINK) fail(source, "cannot link");
    // Another file system (or links refused): copy, then sync, like any other write.
    std::error_code ec;
    fs::copy_file(source, tmp, ec);
    if (ec) throw std::runtime_error(source.string() + ": cannot copy: " + ec.message());
    Fd fd(tmp, O_RDONLY | O_CLOEXEC);
    if (fd.get() < 0 || ::fsync(fd.get()) != 0) {
      ::unlink(tmp.c_str());
      fail(tmp, "cannot sync");
    }
  }
  move_into_place(tmp, target, dir);
}

fs::path move_aside(const fs::path& target) {
  fs::path aside = temp_name(target);
  if (::rename(target.c_str(), aside.c_str()) != 0) fail(target, "cannot move aside");
  fsync_dir(target.parent_path().empty() ? fs::path(".") : target.parent_path());
  return aside;
}

void put_back(const fs::path& aside, const fs::path& target) {
  if (::rename(aside.c_str(), target.c_str()) != 0)
    fail(aside, "cannot put the file back (it was moved aside for a rollback)");
  fsync_dir(target.parent_path().empty() ? fs::path(".") : target.parent_path());
}

bool remove_file_synced(const fs::path& target) {
  if (::unlink(target.c_str()) != 0) {
    if (errno == ENOENT) return false;
    fail(target, "cannot remove");
  }
  fsync_dir(target.parent_path().empty() ? fs::path(".") : target.parent_path());
  return true;
}

}  // namespace perfsage::actions
