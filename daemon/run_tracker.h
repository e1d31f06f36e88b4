// Decides when a watched run is complete enough to analyse. File events (from inotify or a
// scan) make a run pending; it becomes ready when
//   - no file of it is open for writing (modified and not closed since), and
//   - nothing happened in it for `debounce`, and
//   - every file in it is sealed by its format (msprof .done markers, closed Kineto JSON), or
//     nothing happened in it for `quiet` (formats without an end).
// A run that changes after it was handed out becomes pending again: a rewritten run is
// analysed again. Time is passed in, never read, so tests control it.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "daemon/config.h"
#include "daemon/run_layout.h"

namespace perfsage::daemon {

using SteadyTime = std::chrono::steady_clock::time_point;

enum class FileEventKind {
  written,  // data written (IN_MODIFY): the file is open for writing until it is closed
  closed,   // closed after writing (IN_CLOSE_WRITE)
  changed,  // created, moved in, removed, moved out, or found by a scan
};

struct ReadyRun {
  RunLocation run;
  std::string why;  // "end markers" or "quiet for 60 s"
};

struct PendingRun {
  RunLocation run;
  std::string waiting_for;  // what keeps it from being analysed now
};

class RunTracker {
 public:
  RunTracker(const RunLayout& layout, Millis debounce, Millis quiet)
      : layout_(layout), debounce_(debounce), quiet_(quiet) {}

  // A file or folder changed; ignored when it belongs to no run.
  void on_event(const std::filesystem::path& path, FileEventKind kind, SteadyTime now);
  // Runs ready at `now`, removed from the pending set. Reads the files of runs whose debounce
  // has passed (seal checks).
  std::vector<ReadyRun> take_ready(SteadyTime now);
  // The earliest time take_ready could hand out something; nullopt when nothing is pending.
  std::optional<SteadyTime> next_check() const;
  std::vector<PendingRun> pending() const;
  void forget(const std::filesystem::path& run);
  bool is_pending(const std::filesystem::path& run) const { return runs_.count(run) > 0; }

 private:
  struct State {
    RunLocation run;
    SteadyTime last_event;
    std::set<std::filesystem::path> open;  // written and not closed yet
    std::string waiting_for;
    SteadyTime next_check;
  };
  // nullopt when every data file of the run is sealed by its format; else why not (the first
  // file that is not, or that the run has no data file yet).
  static std::optional<std::string> seal_blocker(const std::filesystem::path& run,
                                                 const RunLayout& layout);

  const RunLayout& layout_;
  Millis debounce_, quiet_;
  std::map<std::filesystem::path, State> runs_;
};

}  // namespace perfsage::daemon
