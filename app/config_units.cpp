#include "app/config_units.h"

#include <charconv>
#include <cmath>
#include <utility>
#include <vector>

namespace perfsage::app {
namespace {

// A number followed by a unit from `units` (name -> multiplier); no unit -> `plain`.
std::optional<double> parse_with_units(const std::string& text,
                                       const std::vector<std::pair<std::string, double>>& units,
                                       double plain) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  if (i == 0) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + i, value);
  if (ec != std::errc() || end != text.data() + i || !std::isfinite(value)) return std::nullopt;
  std::string unit = text.substr(i);
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  if (unit.empty()) return value * plain;
  for (const auto& [name, mult] : units) {
    if (unit == name) return value * mult;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_duration(const std::string& text) {
  auto v = parse_with_units(
      text, {{"ms", 1}, {"s", 1000}, {"m", 60000}, {"min", 60000}, {"h", 3600000}}, 1000);
  if (!v || *v < 0 || *v > 9.2e18) return std::nullopt;
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(*v)));
}

std::optional<uint64_t> parse_size(const std::string& text) {
  auto v = parse_with_units(text,
                            {{"B", 1},
                             {"k", 1e3},
                             {"KB", 1e3},
                             {"KiB", 1024.0},
                             {"M", 1e6},
                             {"MB", 1e6},
                             {"MiB", 1048576.0},
                             {"G", 1e9},
                             {"GB", 1e9},
                             {"GiB", 1073741824.0},
                             {"TiB", 1099511627776.0}},
                            1);
  if (!v || *v < 0 || *v > 1.8e19) return std::nullopt;
  return static_cast<uint64_t>(std::llround(*v));
}

}  // namespace perfsage::app
