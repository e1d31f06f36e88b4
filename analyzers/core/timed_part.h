// Runs one part of an analyzer and logs its time (visible with --verbose as "<family> <part>:
// N ms"): docs/performance.md reads these to say where an analyzer's time goes.
#pragma once

#include <spdlog/spdlog.h>

#include <chrono>
#include <string_view>

namespace perfsage::analyzers {

template <typename F>
void timed_part(std::string_view family, std::string_view part, F&& f) {
  auto start = std::chrono::steady_clock::now();
  f();
  spdlog::debug(
      "{} {}: {:.1f} ms", family, part,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace perfsage::analyzers
