// Recursive folder watching with inotify. Folders created or moved in below a watched folder
// are watched as they appear (and what they already hold is reported, since it may have been
// written before the watch existed); folders moved out or removed stop being watched.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

struct inotify_event;

namespace perfsage::daemon {

struct WatchEvent {
  enum Kind {
    written,   // IN_MODIFY
    closed,    // IN_CLOSE_WRITE
    changed,   // created, moved in, removed, moved out, or found in a newly watched folder
    overflow,  // the kernel dropped events: rescan everything
  };
  std::filesystem::path path;
  Kind kind = changed;
};

class InotifyWatcher {
 public:
  // `skip` says which folders (and their files) not to watch or report, e.g. ignored names.
  explicit InotifyWatcher(std::function<bool(const std::filesystem::path&)> skip = {});
  ~InotifyWatcher();
  InotifyWatcher(const InotifyWatcher&) = delete;
  InotifyWatcher& operator=(const InotifyWatcher&) = delete;

  int fd() const { return fd_; }
  // Watches `dir` and every folder below it; the files found are appended to `found`.
  // Throws std::system_error when `dir` itself cannot be watched.
  void add_tree(const std::filesystem::path& dir, std::vector<std::filesystem::path>* found);
  // Reads what is pending without blocking.
  std::vector<WatchEvent> read_events();
  size_t watched_folders() const { return dirs_.size(); }
  // Folders that could not be watched (e.g. the inotify watch limit), reported once each.
  std::vector<std::string> take_warnings();

 private:
  void watch_one(const std::filesystem::path& dir);
  void unwatch_tree(const std::filesystem::path& dir);
  void handle(const ::inotify_event& ev, std::vector<WatchEvent>& out);

  int fd_ = -1;
  std::function<bool(const std::filesystem::path&)> skip_;
  std::unordered_map<int, std::filesystem::path> dirs_;  // watch descriptor -> folder
  std::vector<std::string> warnings_;
};

}  // namespace perfsage::daemon
