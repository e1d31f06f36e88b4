#include "collectors/kineto/trace_buffer.h"

#include <fcntl.h>
#include <libdeflate.h>
#include <simdjson.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <thread>

#include "collectors/common/collector.h"
#include "store/file_bytes.h"

namespace perfsage::collectors::kineto {

// The state shared with the inflate thread.
struct TraceBuffer::Async {
  std::atomic<size_t> ready{0};  // bytes inflated so far
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;  // under mu
  bool fits = true;   // the text ended exactly at the trailer's size
  std::string error;  // corrupt or truncated data
  std::thread thread;
};

TraceBuffer::TraceBuffer(const std::filesystem::path& path, size_t async_min_bytes) : path_(path) {
  if (!store::is_gzip_file(path)) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw ParseError(path.string() + ": cannot open file");
    std::error_code ec;
    size_t size = std::filesystem::file_size(path, ec);
    if (!ec && size > 0) {
      // Private and writable: the few bytes the parser brackets are copied on write, the file
      // is never modified. Not MAP_POPULATE: on a writable private mapping it pre-faults for
      // writing, i.e. copies every page of the file into anonymous memory (measured: 1.4 s
      // per GB on this VM, against 0.45 s for faulting the file's own pages in as they are read).
      void* m = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
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
  if (store::is_gzip_file(path)) {
    inflate(path, async_min_bytes);
    return;
  }
  // Empty or unmappable plain file.
  std::string text = store::read_file(path);
  owned_ = allocate(text.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(owned_.get(), text.data(), text.size());
  std::memset(owned_.get() + text.size(), ' ', simdjson::SIMDJSON_PADDING);
  data_ = owned_.get();
  size_ = text.size();
  readable_ = size_ + simdjson::SIMDJSON_PADDING;
}

// The usual file, one gzip member whose trailer gives its size, inflates in one libdeflate call
// into a buffer of exactly that size: measured here 0.55-1.1 s per GB against 1.4-1.6 s for
// zlib's streaming inflate into the same huge-page buffer. Anything else (several members,
// trailing bytes, a size beyond 4 GiB guessed wrong, corrupt or truncated data) returns false
// for the streaming path, which also names the offset of an error.
bool TraceBuffer::inflate_whole(int fd, size_t compressed, size_t isize) {
  void* mapped = ::mmap(nullptr, compressed, PROT_READ, MAP_PRIVATE, fd, 0);
  if (mapped == MAP_FAILED) return false;
  Bytes in(static_cast<char*>(mapped), UnmapBytes{compressed});
  std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(
      libdeflate_alloc_decompressor(), &libdeflate_free_decompressor);
  if (!d) return false;
  const size_t pad = simdjson::SIMDJSON_PADDING;
  Bytes out = allocate(isize + pad);
  size_t used = 0, produced = 0;
  auto rc = libdeflate_gzip_decompress_ex(d.get(), in.get(), compressed, out.get(), isize, &used,
                                          &produced);
  if (rc != LIBDEFLATE_SUCCESS || used != compressed || produced != isize) return false;
  std::memset(out.get() + isize, ' ', pad);
  owned_ = std::move(out);
  data_ = owned_.get();
  size_ = isize;
  readable_ = isize + pad;
  inflater_ = "libdeflate";
  return true;
}

void TraceBuffer::inflate(const std::filesystem::path& path, size_t async_min_bytes) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw ParseError(path.string() + ": cannot open file");
  std::error_code ec;
  size_t compressed = std::filesystem::file_size(path, ec);
  // The gzip trailer holds the inflated size modulo 2^32: a good first capacity.
  size_t capacity = compressed * 4 + (1 << 20);
  unsigned char trailer[4];
  if (!ec && compressed >= 18 && std::fseek(f.get(), -4, SEEK_END) == 0 &&
      std::fread(trailer, 1, 4, f.get()) == 4) {
    size_t isize = trailer[0] | (trailer[1] << 8) | (trailer[2] << 16) |
                   (static_cast<size_t>(trailer[3]) << 24);
    while (isize < compressed) isize += size_t{1} << 32;  // wrapped: beyond 4 GiB
    capacity = isize + 1;
    if (async_min_bytes > 0 && isize >= async_min_bytes) {
      start_async(path, compressed, isize);
      return;
    }
    if (inflate_whole(fileno(f.get()), compressed, isize)) return;
  }
  std::rewind(f.get());
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw ParseError(path.string() + ": zlib init failed");
  struct End {
    z_stream* z;
    ~End() { inflateEnd(z); }
  } end{&zs};
  const size_t pad = simdjson::SIMDJSON_PADDING;
  owned_ = allocate(capacity + pad);
  size_t size = 0;
  std::unique_ptr<unsigned char[]> in(new unsigned char[1 << 18]);
  int rc = Z_OK;
  for (;;) {
    if (zs.avail_in == 0) {
      size_t n = std::fread(in.get(), 1, 1 << 18, f.get());
      if (n == 0) break;
      zs.next_in = in.get();
      zs.avail_in = static_cast<uInt>(n);
    }
    if (size == capacity) {  // the trailer was wrong (concatenated members): grow
      size_t bigger = capacity + capacity / 2 + (1 << 20);
      auto grown = allocate(bigger + pad);
      std::memcpy(grown.get(), owned_.get(), size);
      owned_ = std::move(grown);
      capacity = bigger;
    }
    size_t room = std::min<size_t>(capacity - size, 1u << 30);
    zs.next_out = reinterpret_cast<Bytef*>(owned_.get() + size);
    zs.avail_out = static_cast<uInt>(room);
    rc = ::inflate(&zs, Z_NO_FLUSH);
    size += room - zs.avail_out;
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members are legal: continue with the next one if input remains.
      if (zs.avail_in == 0 && std::feof(f.get())) break;
      if (inflateReset(&zs) != Z_OK) break;
      continue;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      throw ParseError(path.string() + ": corrupt gzip data near compressed byte offset " +
                       std::to_string(zs.total_in) + " (" + (zs.msg ? zs.msg : "error") + ")");
    }
  }
  if (rc != Z_STREAM_END) {
    throw ParseError(path.string() + ": truncated gzip stream after " +
                     std::to_string(zs.total_in) + " compressed bytes");
  }
  std::memset(owned_.get() + size, ' ', pad);
  data_ = owned_.get();
  size_ = size;
  readable_ = size + pad;
  inflater_ = "zlib";
}

// Inflates with zlib's streaming API (libdeflate has none) into a buffer of the trailer's size,
// publishing progress every 4 MiB, so that the layout scan and the parsers run while the rest
// is inflated: on two cores the inflate then costs its own thread's time instead of adding
// 0.5-2 s per GB before the scan can start.
void TraceBuffer::start_async(const std::filesystem::path& path, size_t compressed, size_t isize) {
  const size_t pad = simdjson::SIMDJSON_PADDING;
  owned_ = allocate(isize + pad);
  std::memset(owned_.get() + isize, ' ', pad);
  data_ = owned_.get();
  size_ = isize;
  readable_ = isize + pad;
  inflater_ = "zlib, overlapped";
  async_ = std::make_unique<Async>();
  Async* a = async_.get();
  char* out = owned_.get();
  std::string name = path.string();
  a->thread = std::thread([a, out, isize, compressed, name] {
    std::string error;
    bool fits = true;
    size_t produced = 0;
    auto publish = [&] {
      {
        std::lock_guard lock(a->mu);
        a->ready.store(produced, std::memory_order_release);
      }
      a->cv.notify_all();
    };
    int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
    void* in = fd < 0 ? MAP_FAILED : ::mmap(nullptr, compressed, PROT_READ, MAP_PRIVATE, fd, 0);
    if (fd >= 0) ::close(fd);
    z_stream zs{};
    if (in == MAP_FAILED) {
      error = name + ": cannot read the gzip file";
    } else if (inflateInit2(&zs, 15 + 16) != Z_OK) {
      error = name + ": zlib init failed";
    } else {
      zs.next_in = static_cast<Bytef*>(in);
      zs.avail_in = static_cast<uInt>(std::min<size_t>(compressed, 1u << 30));
      size_t fed = zs.avail_in;
      int rc = Z_OK;
      unsigned char probe[1];
      size_t released = 0;  // compressed bytes given back, a multiple of 1 MiB
      while (!a->stop.load(std::memory_order_relaxed)) {
        if (zs.avail_in == 0 && fed < compressed) {  // files over 1 GiB compressed
          zs.avail_in = static_cast<uInt>(std::min<size_t>(compressed - fed, 1u << 30));
          fed += zs.avail_in;
        }
        size_t room = std::min<size_t>(isize - produced, 4u << 20);
        // Past the announced size, a byte of scratch tells whether the text goes on.
        zs.next_out = room > 0 ? reinterpret_cast<Bytef*>(out + produced) : probe;
        zs.avail_out = room > 0 ? static_cast<uInt>(room) : 1;
        rc = ::inflate(&zs, Z_NO_FLUSH);
        if (room == 0 && zs.avail_out == 0) {
          fits = false;  // more text than the trailer said: several members or > 4 GiB
          break;
        }
        produced += room - (room > 0 ? zs.avail_out : 0);
        publish();
        // Compressed pages already inflated are dropped (they would count as resident).
        size_t consumed = (zs.total_in & ~size_t{0xFFFFF});
        if (consumed > released) {
          ::madvise(static_cast<char*>(in) + released, consumed - released, MADV_DONTNEED);
          released = consumed;
        }
        if (rc == Z_STREAM_END) {
          fits = produced == isize && zs.avail_in == 0 && fed == compressed;
          break;
        }
        if (rc == Z_BUF_ERROR && zs.avail_in == 0 && fed == compressed) {
          error = name + ": truncated gzip stream after " + std::to_string(zs.total_in) +
                  " compressed bytes";
          break;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
          error = name + ": corrupt gzip data near compressed byte offset " +
                  std::to_string(zs.total_in) + " (" + (zs.msg ? zs.msg : "error") + ")";
          break;
        }
      }
      inflateEnd(&zs);
    }
    if (in != MAP_FAILED) ::munmap(in, compressed);
    {
      std::lock_guard lock(a->mu);
      a->done = true;
      a->fits = fits;
      a->error = std::move(error);
    }
    a->cv.notify_all();
  });
}

size_t TraceBuffer::wait(size_t n) const {
  if (!async_) return size_;
  size_t ready = async_->ready.load(std::memory_order_acquire);
  if (ready >= n) return ready;
  std::unique_lock lock(async_->mu);
  async_->cv.wait(
      lock, [&] { return async_->ready.load(std::memory_order_acquire) >= n || async_->done; });
  return async_->ready.load(std::memory_order_acquire);
}

bool TraceBuffer::finish() {
  if (!async_) return true;
  if (async_->thread.joinable()) async_->thread.join();
  if (!async_->error.empty()) throw ParseError(async_->error);
  if (async_->fits) return true;
  // The trailer's size was wrong: inflate again the plain way, which grows its buffer.
  async_.reset();
  owned_.reset();
  inflate(path_, 0);
  return false;
}

void UnmapBytes::operator()(char* p) const {
  if (p != nullptr) ::munmap(p, len);
}

// Anonymous memory (zero pages until written) with a transparent-huge-page hint. Measured on
// this project's 2-core VM: inflating 1 GB into 4 KiB pages took 2.8 s and the first pass over
// them 1.1 s; into huge pages 1.6 s and 0.05 s.
TraceBuffer::Bytes TraceBuffer::allocate(size_t n) {
  size_t len = n == 0 ? 1 : n;
  void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  ::madvise(p, len, MADV_HUGEPAGE);  // a hint: ignored where THP is off
#endif
  return Bytes(static_cast<char*>(p), UnmapBytes{len});
}

TraceBuffer::~TraceBuffer() {
  if (async_ && async_->thread.joinable()) {
    async_->stop = true;
    async_->thread.join();
  }
  if (map_) ::munmap(map_, map_len_);
}

}  // namespace perfsage::collectors::kineto
