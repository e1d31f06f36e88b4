// Input files as bytes, for every layer that reads them (the collectors, and the actions that
// read a model or a switch file back): whole or in part, gzip inflated transparently, or
// mapped read-only. Errors name the file and the byte offset.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace perfsage::store {

// An input file that cannot be read: missing, unreadable, corrupt or truncated gzip.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// True when the file starts with the gzip magic bytes.
bool is_gzip_file(const std::filesystem::path& path);
// Reads the whole file, inflated when gzip. `padding` extra zero bytes are reserved after the
// content (capacity only; size() is the content length) so simdjson can parse in place.
// Throws InputError naming the file and byte offset on I/O or gzip errors.
std::string read_file(const std::filesystem::path& path, size_t padding = 0);
// Reads at most `limit` bytes of (inflated) content from the start of the file.
std::string read_head(const std::filesystem::path& path, size_t limit);

// A whole input file as read-only bytes (store/mapped_file.cpp). A plain file is mapped
// read-only: no copy into the heap, and no page of it is written, so the kernel shares the page
// cache's pages (a private mapping that is written, as the Kineto parser's is, needs
// kineto::TraceBuffer instead). A gzip file is inflated into memory; so is a pipe or a file on a
// file system that cannot map.
class InputBytes {
 public:
  // Throws InputError naming the file on I/O or gzip errors.
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

}  // namespace perfsage::store
