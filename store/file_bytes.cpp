#include "store/file_bytes.h"

#include <zlib.h>

#include <cstdio>
#include <memory>

namespace perfsage::store {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File open(const std::filesystem::path& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) throw InputError(path.string() + ": cannot open file");
  return f;
}

// RAII owner of a zlib inflate stream.
class Inflater {
 public:
  explicit Inflater(const std::filesystem::path& path) : path_(path) {
    // 15 + 32: accept gzip or zlib headers automatically.
    if (inflateInit2(&zs_, 15 + 32) != Z_OK) throw InputError(path.string() + ": zlib init failed");
  }
  ~Inflater() { inflateEnd(&zs_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  // Inflates everything from `f` into `out`, stopping once out.size() >= limit.
  void run(std::FILE* f, std::string& out, size_t limit) {
    std::string in(1 << 18, '\0');
    int rc = Z_OK;
    while (out.size() < limit) {
      if (zs_.avail_in == 0) {
        size_t n = std::fread(in.data(), 1, in.size(), f);
        if (n == 0) break;
        zs_.next_in = reinterpret_cast<Bytef*>(in.data());
        zs_.avail_in = static_cast<uInt>(n);
      }
      size_t old = out.size();
      size_t chunk = std::max<size_t>(1 << 20, old / 2);
      out.resize(old + chunk);
      zs_.next_out = reinterpret_cast<Bytef*>(out.data() + old);
      zs_.avail_out = static_cast<uInt>(chunk);
      rc = inflate(&zs_, Z_NO_FLUSH);
      out.resize(old + (chunk - zs_.avail_out));
      if (rc == Z_STREAM_END) {
        // Concatenated gzip members are legal: continue with the next one if input remains.
        if (zs_.avail_in == 0 && std::feof(f)) return;
        if (inflateReset(&zs_) != Z_OK) break;
        continue;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        throw InputError(path_.string() + ": corrupt gzip data near compressed byte offset " +
                         std::to_string(zs_.total_in) + " (" + (zs_.msg ? zs_.msg : "error") + ")");
      }
    }
    if (out.size() < limit && rc != Z_STREAM_END) {
      throw InputError(path_.string() + ": truncated gzip stream after " +
                       std::to_string(zs_.total_in) + " compressed bytes");
    }
  }

 private:
  std::filesystem::path path_;
  z_stream zs_{};
};

}  // namespace

bool is_gzip_file(const std::filesystem::path& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) return false;
  unsigned char magic[2] = {0, 0};
  return std::fread(magic, 1, 2, f.get()) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

std::string read_file(const std::filesystem::path& path, size_t padding) {
  auto f = open(path);
  std::string out;
  if (is_gzip_file(path)) {
    Inflater inf(path);
    inf.run(f.get(), out, SIZE_MAX);
    out.reserve(out.size() + padding);
    return out;
  }
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path.string() + ": cannot stat file: " + ec.message());
  out.reserve(size + padding);
  out.resize(size);
  if (size && std::fread(out.data(), 1, size, f.get()) != size) {
    throw InputError(path.string() + ": read error");
  }
  return out;
}

std::string read_head(const std::filesystem::path& path, size_t limit) {
  auto f = open(path);
  std::string out;
  if (is_gzip_file(path)) {
    Inflater inf(path);
    try {
      inf.run(f.get(), out, limit);
    } catch (const InputError&) {
      // A probe of a corrupt archive still shows what inflated; the collector reports the error.
    }
  } else {
    out.resize(limit);
    out.resize(std::fread(out.data(), 1, limit, f.get()));
  }
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace perfsage::store
