// Unpacks a pack archive (.tar, .tar.gz, .tgz, .zip; anything libarchive reads) into a folder,
// as untrusted input: regular files and folders only (no links, devices or fifos), relative
// paths that stay inside the folder, at most kMaxArchiveEntries entries and kMaxArchiveBytes
// unpacked. Throws std::runtime_error naming the archive and the entry.
#pragma once

#include <cstddef>
#include <filesystem>

namespace perfsage::app {

void unpack_archive(const std::filesystem::path& archive, const std::filesystem::path& into,
                    size_t max_bytes, size_t max_entries);

}  // namespace perfsage::app
