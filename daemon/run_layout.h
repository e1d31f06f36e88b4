// Where runs are in the watched folders: a run is the folder (or single file) whose path
// relative to a watch root matches one of the root's `runs` globs; everything below it belongs
// to it. The job a run belongs to comes from the root's `job` template.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "daemon/config.h"

namespace perfsage::daemon {

struct RunLocation {
  size_t root = 0;             // index into the watch roots
  std::filesystem::path path;  // the run folder or file
  std::string job;
};

// The name of the folder tuning actions write into (`perfsage actions apply`'s default and the
// daemon's default actions_dir): what is below it is perfsage's output, never a run.
inline constexpr const char* kActionsFolderName = "perfsage-actions";

class RunLayout {
 public:
  // `own`: the daemon's own files and folders (store, queue, actions folder, log): neither they
  // nor anything below them (a store's -wal and -shm files included) is ever a run.
  explicit RunLayout(std::vector<WatchRoot> roots, std::vector<std::filesystem::path> own = {});
  const std::vector<WatchRoot>& roots() const { return roots_; }
  // The run `path` belongs to (or is); nullopt when it lies above the run level, outside every
  // root, or under an ignored name (hidden and temporary files).
  std::optional<RunLocation> locate(const std::filesystem::path& path) const;
  // Whether a file or folder under a root is ignored: by the root's `ignore` globs, as the
  // daemon's own output, or inside a perfsage-actions folder.
  bool ignored(const std::filesystem::path& path) const;

 private:
  bool own_output(const std::filesystem::path& path) const;
  std::vector<WatchRoot> roots_;
  std::vector<std::string> own_;  // normal absolute paths
};

// Fills a job template from a run's relative path components; see WatchRoot::job.
std::string job_name(const WatchRoot& root, const std::vector<std::string>& components);
// An error text when `tmpl` uses an unknown placeholder or a component beyond `depth`.
std::optional<std::string> check_job_template(const std::string& tmpl, size_t depth);
// Glob over one path component (fnmatch: *, ?, [...]; a leading dot must be written).
bool component_matches(const std::string& glob, const std::string& name);
// The number of components of a runs glob ("*/*" → 2).
size_t glob_depth(const std::string& glob);

}  // namespace perfsage::daemon
