#include "collectors/graph/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "collectors/common/collector.h"
#include "collectors/common/file_reader.h"

namespace perfsage::collectors::graph {

FileText::FileText(const std::filesystem::path& path) {
  if (is_gzip_file(path)) {
    inflated_ = read_file(path);
    view_ = inflated_;
    return;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ParseError(path.string() + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    throw ParseError(path.string() + ": cannot stat: " + std::strerror(e));
  }
  if (st.st_size > 0) {
    void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      inflated_ = read_file(path);  // e.g. a pipe or a file system without mmap
      view_ = inflated_;
      return;
    }
    map_ = p;
    map_size_ = static_cast<size_t>(st.st_size);
    ::madvise(map_, map_size_, MADV_SEQUENTIAL);
    view_ = std::string_view(static_cast<const char*>(map_), map_size_);
  }
  ::close(fd);
}

FileText::~FileText() {
  release();
}

void FileText::release() {
  if (map_) ::munmap(map_, map_size_);
  map_ = nullptr;
  map_size_ = 0;
  std::string().swap(inflated_);
  view_ = {};
}

}  // namespace perfsage::collectors::graph
