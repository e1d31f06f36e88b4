// A read-only view of a whole input file: memory-mapped when plain, inflated when gzip.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace perfsage::collectors::graph {

class FileText {
 public:
  // Throws ParseError naming the file on I/O or gzip errors.
  explicit FileText(const std::filesystem::path& path);
  ~FileText();
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;

  std::string_view view() const { return view_; }
  // Drops the content early (the parsed model is all that is needed afterwards).
  void release();

 private:
  void* map_ = nullptr;
  size_t map_size_ = 0;
  std::string inflated_;
  std::string_view view_;
};

}  // namespace perfsage::collectors::graph
