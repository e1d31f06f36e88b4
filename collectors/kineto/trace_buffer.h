// The whole trace text in memory, writable (the parser brackets chunks in place) and readable
// for simdjson's padding past the end. Plain files are mapped (private, pre-faulted: no copy
// and no zero-fill, which matter on VMs that charge per touched page); gzip files are inflated
// into one buffer sized from the gzip trailer, so memory stays near 1x the JSON.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace perfsage::collectors::kineto {

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

 private:
  void inflate(const std::filesystem::path& path);

  std::unique_ptr<char[]> owned_;
  void* map_ = nullptr;
  size_t map_len_ = 0;
  char* data_ = nullptr;
  size_t size_ = 0, readable_ = 0;
};

}  // namespace perfsage::collectors::kineto
