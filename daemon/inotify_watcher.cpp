#include "daemon/inotify_watcher.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

namespace perfsage::daemon {
namespace fs = std::filesystem;
namespace {

constexpr uint32_t kMask = IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |
                           IN_DELETE | IN_DELETE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK;

bool below(const fs::path& path, const fs::path& dir) {
  auto rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

InotifyWatcher::InotifyWatcher(std::function<bool(const fs::path&)> skip) : skip_(std::move(skip)) {
  fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "inotify_init1");
}

InotifyWatcher::~InotifyWatcher() {
  if (fd_ >= 0) ::close(fd_);
}

void InotifyWatcher::watch_one(const fs::path& dir) {
  int wd = inotify_add_watch(fd_, dir.c_str(), kMask);
  if (wd < 0) {
    int err = errno;
    std::string hint = err == ENOSPC ? " (raise fs.inotify.max_user_watches)" : "";
    throw std::system_error(err, std::generic_category(), "cannot watch " + dir.string() + hint);
  }
  dirs_[wd] = dir;
}

void InotifyWatcher::add_tree(const fs::path& dir, std::vector<fs::path>* found) {
  // The watch comes first, so nothing written after the walk below goes unseen.
  watch_one(dir);
  std::error_code ec;
  for (auto it =
           fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (skip_ && skip_(it->path())) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_directory(ec) && !it->is_symlink(ec)) {
      try {
        watch_one(it->path());
      } catch (const std::system_error& e) {
        warnings_.push_back(e.what());
        it.disable_recursion_pending();
      }
    } else if (found && it->is_regular_file(ec)) {
      found->push_back(it->path());
    }
  }
}

void InotifyWatcher::unwatch_tree(const fs::path& dir) {
  for (auto it = dirs_.begin(); it != dirs_.end();) {
    if (it->second == dir || below(it->second, dir)) {
      inotify_rm_watch(fd_, it->first);
      it = dirs_.erase(it);
    } else {
      ++it;
    }
  }
}

void InotifyWatcher::handle(const inotify_event& ev, std::vector<WatchEvent>& out) {
  if (ev.mask & IN_Q_OVERFLOW) {
    out.push_back({{}, WatchEvent::overflow});
    return;
  }
  auto dir = dirs_.find(ev.wd);
  if (dir == dirs_.end()) return;
  if (ev.mask & IN_IGNORED) {  // the folder is gone (or unwatched)
    dirs_.erase(dir);
    return;
  }
  if (ev.mask & IN_DELETE_SELF) {
    out.push_back({dir->second, WatchEvent::changed});
    return;
  }
  fs::path path = ev.len ? dir->second / ev.name : dir->second;
  if (skip_ && skip_(path)) return;
  if (ev.mask & IN_ISDIR) {
    if (ev.mask & (IN_CREATE | IN_MOVED_TO)) {
      std::vector<fs::path> found;
      try {
        add_tree(path, &found);
      } catch (const std::system_error& e) {
        warnings_.push_back(e.what());
      }
      out.push_back({path, WatchEvent::changed});
      for (auto& f : found) out.push_back({std::move(f), WatchEvent::changed});
    } else if (ev.mask & (IN_MOVED_FROM | IN_DELETE)) {
      // A folder moved elsewhere keeps its watches (they follow the inode): drop them.
      unwatch_tree(path);
      out.push_back({path, WatchEvent::changed});
    }
    return;
  }
  if (ev.mask & IN_MODIFY) out.push_back({path, WatchEvent::written});
  if (ev.mask & IN_CLOSE_WRITE) out.push_back({path, WatchEvent::closed});
  if (ev.mask & (IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)) {
    out.push_back({path, WatchEvent::changed});
  }
}

std::vector<WatchEvent> InotifyWatcher::read_events() {
  std::vector<WatchEvent> out;
  alignas(inotify_event) char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n <= 0) break;  // EAGAIN: nothing more for now
    for (char* p = buf; p < buf + n;) {
      auto* ev = reinterpret_cast<inotify_event*>(p);
      handle(*ev, out);
      p += sizeof(inotify_event) + ev->len;
    }
  }
  return out;
}

std::vector<std::string> InotifyWatcher::take_warnings() {
  return std::exchange(warnings_, {});
}

}  // namespace perfsage::daemon
