// A progress line on stderr for analyses that take longer than a second: the stage and the time
// spent, redrawn in place, cleared when done. Off when stderr is not a terminal or with --quiet.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "app/analysis.h"

namespace perfsage::cli {

class ProgressLine {
 public:
  // `enabled` false makes every call a no-op (no thread is started).
  explicit ProgressLine(bool enabled);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // The callback to give the service.
  app::ProgressFn callback();

  // True when stderr is a terminal (and so a progress line can be redrawn in place).
  static bool stderr_is_terminal();

 private:
  void run();

  bool enabled_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string stage_;
  double fraction_ = -1;
  bool done_ = false, drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::thread thread_;
};

}  // namespace perfsage::cli
