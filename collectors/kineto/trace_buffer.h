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
  explicit TraceBuffer(const std::filesystem::path& path);
  ~TraceBuffer();
  TraceBuffer(const TraceBuffer&) = delete;
  TraceBuffer& operator=(const TraceBuffer&) = delete;

  char* data() { return data_; }
  size_t size() const { return size_; }
  // Bytes readable from data() on (size() plus padding where available).
  size_t readable() const { return readable_; }
  std::string_view view() const { return {data_, size_}; }
  // How a gzip file was inflated: "libdeflate" (one call) or "zlib" (streaming); "" when the
  // file was not compressed.
  const char* inflater() const { return inflater_; }

 private:
  void inflate(const std::filesystem::path& path);
  // `fd`: the open gzip file, read through a mapping.
  bool inflate_whole(int fd, size_t compressed, size_t isize);

  using Bytes = std::unique_ptr<char, UnmapBytes>;
  static Bytes allocate(size_t n);

  Bytes owned_;
  void* map_ = nullptr;
  size_t map_len_ = 0;
  char* data_ = nullptr;
  size_t size_ = 0, readable_ = 0;
  const char* inflater_ = "";
};

}  // namespace perfsage::collectors::kineto
