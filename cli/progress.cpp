#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

namespace perfsage::cli {

bool ProgressLine::stderr_is_terminal() {
  return isatty(STDERR_FILENO) == 1;
}

ProgressLine::ProgressLine(bool enabled)
    : enabled_(enabled), start_(std::chrono::steady_clock::now()) {
  if (enabled_) thread_ = std::thread([this] { run(); });
}

ProgressLine::~ProgressLine() {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

app::ProgressFn ProgressLine::callback() {
  if (!enabled_) return {};
  return [this](std::string_view stage, double fraction) {
    std::lock_guard<std::mutex> lock(mu_);
    stage_ = std::string(stage);
    fraction_ = fraction;
  };
}

void ProgressLine::run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!done_) {
    cv_.wait_for(lock, std::chrono::milliseconds(250));
    if (done_) break;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (s < 1.0 || stage_.empty()) continue;
    if (fraction_ >= 0)
      std::fprintf(stderr, "\r\033[Kperfsage: %s %.0f %% (%.1f s)", stage_.c_str(), fraction_ * 100,
                   s);
    else
      std::fprintf(stderr, "\r\033[Kperfsage: %s… (%.1f s)", stage_.c_str(), s);
    std::fflush(stderr);
    drawn_ = true;
  }
}

}  // namespace perfsage::cli
