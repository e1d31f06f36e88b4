// Reading input files whole or in part, inflating gzip transparently.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace perfsage::collectors {

// True when the file starts with the gzip magic bytes.
bool is_gzip_file(const std::filesystem::path& path);
// Reads the whole file, inflated when gzip. `padding` extra zero bytes are reserved after the
// content (capacity only; size() is the content length) so simdjson can parse in place.
// Throws ParseError naming the file and byte offset on I/O or gzip errors.
std::string read_file(const std::filesystem::path& path, size_t padding = 0);
// Reads at most `limit` bytes of (inflated) content from the start of the file.
std::string read_head(const std::filesystem::path& path, size_t limit);

}  // namespace perfsage::collectors
