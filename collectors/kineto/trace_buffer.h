// The whole trace text in memory, writable (the parser brackets chunks in place) and readable
// for simdjson's padding past the end. Plain files are mapped (private: no copy, pages fault in
// as they are read); gzip files are inflated into one anonymous buffer sized from the gzip
// trailer and backed by transparent huge pages where the kernel allows, so memory stays near
// 1x the JSON and a VM that traps on the first touch of every 4 KiB page traps 512x less.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace perfsage::collectors::kineto {

// Releases an anonymous mapping of `len` bytes.
struct UnmapBytes {
  size_t len = 0;
  void operator()(char* p) const;
};

class TraceBuffer {
 public:
  // `async_min_bytes`: a single-member gzip file that inflates to at least this many bytes is
  // inflated by a thread of its own while the caller already reads the part inflated so far
  // (wait()); 0: never.
  explicit TraceBuffer(const std::filesystem::path& path, size_t async_min_bytes = 0);
  ~TraceBuffer();
  TraceBuffer(const TraceBuffer&) = delete;
  TraceBuffer& operator=(const TraceBuffer&) = delete;

  char* data() { return data_; }
  size_t size() const { return size_; }
  // Bytes readable from data() on (size() plus padding where available).
  size_t readable() const { return readable_; }
  std::string_view view() const { return {data_, size_}; }
  // How a gzip file was inflated: "libdeflate" (one call), "zlib" (streaming) or "zlib,
  // overlapped" (on its own thread); "" when the file was not compressed.
  const char* inflater() const { return inflater_; }

  // True while (or after) a thread inflates into the buffer: size() is the size the gzip
  // trailer announced, and only the first wait() bytes may be read.
  bool growing() const { return async_ != nullptr; }
  // Blocks until the first `n` bytes are inflated (or the inflate has ended); returns how many
  // bytes are readable now: at least `n`, fewer only when the text ended early. Any thread.
  size_t wait(size_t n) const;
  // Waits for the inflate thread. True when the text is complete and size() was right; false
  // when the trailer's size was wrong (several members, beyond 4 GiB): the buffer then holds
  // the whole text, inflated again the plain way, and the caller must read it again. Throws
  // ParseError for corrupt or truncated data.
  bool finish();

 private:
  struct Async;
  void start_async(const std::filesystem::path& path, size_t compressed, size_t isize);
  // `async_min_bytes`: as the constructor's; 0 inflates before returning.
  void inflate(const std::filesystem::path& path, size_t async_min_bytes);
  // `fd`: the open gzip file, read through a mapping.
  bool inflate_whole(int fd, size_t compressed, size_t isize);

  using Bytes = std::unique_ptr<char, UnmapBytes>;
  static Bytes allocate(size_t n);

  std::filesystem::path path_;
  std::unique_ptr<Async> async_;
  Bytes owned_;
  void* map_ = nullptr;
  size_t map_len_ = 0;
  char* data_ = nullptr;
  size_t size_ = 0, readable_ = 0;
  const char* inflater_ = "";
};

}  // namespace perfsage::collectors::kineto
