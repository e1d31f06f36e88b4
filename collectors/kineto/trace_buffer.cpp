#include "collectors/kineto/trace_buffer.h"

#include <fcntl.h>
#include <simdjson.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collectors/common/collector.h"
#include "collectors/common/file_reader.h"

namespace perfsage::collectors::kineto {

TraceBuffer::TraceBuffer(const std::filesystem::path& path) {
  if (!is_gzip_file(path)) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw ParseError(path.string() + ": cannot open file");
    std::error_code ec;
    size_t size = std::filesystem::file_size(path, ec);
    if (!ec && size > 0) {
      // Private and writable: the few bytes the parser brackets are copied on write, the file
      // is never modified.
      void* m = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (m != MAP_FAILED) {
        map_ = m;
        map_len_ = size;
        data_ = static_cast<char*>(m);
        size_ = size;
        readable_ = size;  // nothing past the end is guaranteed mapped
      }
    }
    ::close(fd);
    if (map_) return;
  }
  owned_ = read_file(path, simdjson::SIMDJSON_PADDING);
  data_ = owned_.data();
  size_ = owned_.size();
  readable_ = owned_.capacity();
}

TraceBuffer::~TraceBuffer() {
  if (map_) ::munmap(map_, map_len_);
}

}  // namespace perfsage::collectors::kineto
