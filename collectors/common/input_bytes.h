// A whole input file as read-only bytes. A plain file is mapped read-only: no copy into the
// heap, and no page of it is written, so the kernel shares the page cache's pages (a private
// mapping that is written, as the Kineto parser's is, needs kineto::TraceBuffer instead). A
// gzip file is inflated into memory; so is a pipe or a file on a file system that cannot map.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace perfsage::collectors {

class InputBytes {
 public:
  // Throws ParseError naming the file on I/O or gzip errors.
  explicit InputBytes(const std::filesystem::path& path);
  ~InputBytes();
  InputBytes(const InputBytes&) = delete;
  InputBytes& operator=(const InputBytes&) = delete;

  std::string_view view() const { return view_; }
  // Drops the bytes early (when what was parsed from them is all that is needed afterwards).
  void release();

 private:
  void* map_ = nullptr;
  size_t map_len_ = 0;
  std::string owned_;
  std::string_view view_;
};

}  // namespace perfsage::collectors
