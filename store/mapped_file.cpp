#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "store/file_bytes.h"

namespace perfsage::store {

InputBytes::InputBytes(const std::filesystem::path& path) {
  if (is_gzip_file(path)) {
    owned_ = read_file(path);
    view_ = owned_;
    return;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(path.string() + ": cannot open file: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    owned_ = read_file(path);  // a pipe or device: read it as a stream
    view_ = owned_;
    return;
  }
  auto len = static_cast<size_t>(st.st_size);
  if (len == 0) {
    ::close(fd);
    return;
  }
  // Read-only and populated up front: the page tables are filled in one call instead of one
  // fault per 4 KiB page, which is what a virtual machine makes expensive.
  void* p = ::mmap(nullptr, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) {  // some file systems cannot map: read instead
    owned_ = read_file(path);
    view_ = owned_;
    return;
  }
  map_ = p;
  map_len_ = len;
  view_ = std::string_view(static_cast<const char*>(p), len);
}

InputBytes::~InputBytes() {
  release();
}

void InputBytes::release() {
  if (map_ != nullptr) ::munmap(map_, map_len_);
  map_ = nullptr;
  map_len_ = 0;
  std::string().swap(owned_);
  view_ = {};
}

}  // namespace perfsage::store
