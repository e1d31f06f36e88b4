// Files an action writes: atomically (temp file in the same folder, fsync, rename, fsync the
// folder: readers see the old state or the whole new file, never a part) and fingerprinted
// with SHA-256 so that the audit trail names exactly what was written and a rollback can tell
// whether a file changed since.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace perfsage::actions {

std::string sha256_hex(std::string_view bytes);
// The SHA-256 of a file's content; throws std::runtime_error naming the file.
std::string sha256_file(const std::filesystem::path& file);

// Writes `bytes` to `target` atomically, creating its folder. Only a regular file, a link (the
// link itself, never what it names) or nothing is replaced: a device, a FIFO, a socket or a
// folder at `target` is an error. Throws std::runtime_error naming the file and the reason.
void write_file_atomic(const std::filesystem::path& target, std::string_view bytes);
// Writes a file a user named (a report's -o FILE, a port file): as a shell's `>` would, links are
// followed and a device, FIFO or socket (/dev/null, /dev/stdout, a named pipe) is written
// through, never replaced; a regular file or a new name is written atomically as above.
void write_user_file(const std::filesystem::path& target, std::string_view bytes);
// Makes `target` a second name of `source` (a hard link, made atomically like a write); copies
// when the two are on different file systems. Used for large files a rewritten model refers to.
// Replaces only what write_file_atomic replaces.
void link_file_atomic(const std::filesystem::path& source, const std::filesystem::path& target);
// Renames `target` to an unused name in its folder (atomic; the folder is synced) and returns
// that name; put_back renames it back. A rollback moves every file aside before it records
// anything, so that a failure part-way puts them all back instead of leaving half an apply.
std::filesystem::path move_aside(const std::filesystem::path& target);
void put_back(const std::filesystem::path& aside, const std::filesystem::path& target);
// Removes a file and syncs its folder; false when it did not exist.
bool remove_file_synced(const std::filesystem::path& target);

}  // namespace perfsage::actions
