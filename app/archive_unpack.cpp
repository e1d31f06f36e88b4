#include "app/archive_unpack.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <stdexcept>

namespace perfsage::app {
namespace fs = std::filesystem;
namespace {

struct ArchiveFree {
  void operator()(archive* a) const { archive_read_free(a); }
};

// A path from the archive made safe: relative, no "..", no empty or "." parts kept.
fs::path safe_relative(const std::string& name, const fs::path& archive_path) {
  fs::path p(name);
  if (p.is_absolute())
    throw std::runtime_error(archive_path.string() + ": entry '" + name + "' has an absolute path");
  fs::path out;
  for (const auto& part : p) {
    if (part == "..")
      throw std::runtime_error(archive_path.string() + ": entry '" + name +
                               "' leaves the archive's folder");
    if (part.empty() || part == ".") continue;
    out /= part;
  }
  return out;
}

}  // namespace

void unpack_archive(const fs::path& archive_path, const fs::path& into, size_t max_bytes,
                    size_t max_entries) {
  std::unique_ptr<archive, ArchiveFree> a(archive_read_new());
  archive_read_support_filter_all(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_format_gnutar(a.get());
  archive_read_support_format_zip(a.get());
  if (archive_read_open_filename(a.get(), archive_path.c_str(), 64 * 1024) != ARCHIVE_OK)
    throw std::runtime_error(archive_path.string() + ": " + archive_error_string(a.get()));
  size_t entries = 0, bytes = 0;
  archive_entry* entry = nullptr;
  for (;;) {
    int rc = archive_read_next_header(a.get(), &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc != ARCHIVE_OK)
      throw std::runtime_error(archive_path.string() + ": " + archive_error_string(a.get()));
    const std::string name = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    if (++entries > max_entries)
      throw std::runtime_error(archive_path.string() + ": more than " +
                               std::to_string(max_entries) + " entries");
    fs::path rel = safe_relative(name, archive_path);
    if (rel.empty()) continue;
    auto type = archive_entry_filetype(entry);
    if (type == AE_IFDIR) {
      fs::create_directories(into / rel);
      continue;
    }
    if (type != AE_IFREG || archive_entry_hardlink(entry))
      throw std::runtime_error(archive_path.string() + ": entry '" + name +
                               "' is not a regular file or folder");
    fs::create_directories((into / rel).parent_path());
    std::ofstream out(into / rel, std::ios::binary | std::ios::trunc);
    char buf[64 * 1024];
    for (;;) {
      la_ssize_t n = archive_read_data(a.get(), buf, sizeof buf);
      if (n < 0)
        throw std::runtime_error(archive_path.string() + ": entry '" + name +
                                 "': " + archive_error_string(a.get()));
      if (n == 0) break;
      bytes += static_cast<size_t>(n);
      if (bytes > max_bytes)
        throw std::runtime_error(archive_path.string() + ": unpacks to more than " +
                                 std::to_string(max_bytes >> 20) + " MiB");
      out.write(buf, n);
    }
    if (!out) throw std::runtime_error("cannot write " + (into / rel).string());
  }
}

}  // namespace perfsage::app
