// The one unit syntax of every configuration section (the CLI's config file and perfsaged's):
// durations such as "250ms", "2s", "1.5m", "1h" (a bare number is seconds) and sizes such as
// "512MiB", "4GiB", "100MB", "64k" (a bare number is bytes).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace perfsage::app {

std::optional<std::chrono::milliseconds> parse_duration(const std::string& text);
std::optional<uint64_t> parse_size(const std::string& text);

}  // namespace perfsage::app
