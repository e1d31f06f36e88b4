#include "daemon/file_seal.h"

#include <zlib.h>

#include <array>
#include <cctype>
#include <fstream>
#include <vector>

namespace perfsage::daemon {
namespace fs = std::filesystem;
namespace {

bool blank(unsigned char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool brackets_match(char first, char last) {
  return (first == '{' && last == '}') || (first == '[' && last == ']');
}

bool plain_json_closed(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  char first = 0;
  while (in.get(first) && blank(static_cast<unsigned char>(first))) {
  }
  if (!in) return false;
  in.clear();
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  std::streamoff pos = size;
  std::array<char, 4096> buf{};
  while (pos > 0) {
    std::streamoff n = std::min<std::streamoff>(pos, buf.size());
    pos -= n;
    in.seekg(pos);
    if (!in.read(buf.data(), n)) return false;
    for (std::streamoff i = n - 1; i >= 0; --i) {
      if (!blank(static_cast<unsigned char>(buf[i]))) return brackets_match(first, buf[i]);
    }
  }
  return false;
}

bool gzip_json_closed(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return false;
  std::vector<unsigned char> src(1 << 16), dst(1 << 18);
  char first = 0, last = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (zs.avail_in == 0) {
      in.read(reinterpret_cast<char*>(src.data()), static_cast<std::streamsize>(src.size()));
      zs.avail_in = static_cast<uInt>(in.gcount());
      zs.next_in = src.data();
      if (zs.avail_in == 0) break;  // the stream ends before its trailer: cut short
    }
    zs.next_out = dst.data();
    zs.avail_out = static_cast<uInt>(dst.size());
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    size_t produced = dst.size() - zs.avail_out;
    for (size_t i = 0; i < produced; ++i) {
      if (blank(dst[i])) continue;
      if (!first) first = static_cast<char>(dst[i]);
      last = static_cast<char>(dst[i]);
    }
  }
  inflateEnd(&zs);
  return rc == Z_STREAM_END && brackets_match(first, last);
}

}  // namespace

bool json_closed(const fs::path& file) {
  return ends_with(file.filename().string(), ".gz") ? gzip_json_closed(file)
                                                    : plain_json_closed(file);
}

Seal file_seal(const fs::path& file) {
  std::string name = file.filename().string();
  if (ends_with(name, ".done")) return Seal::marker;
  std::error_code ec;
  if (fs::exists(fs::path(file.string() + ".done"), ec)) return Seal::sealed;
  if (ends_with(name, ".json") || ends_with(name, ".json.gz")) {
    return json_closed(file) ? Seal::sealed : Seal::unsealed;
  }
  return Seal::unknown;
}

}  // namespace perfsage::daemon
