// Human-readable numbers for reports.
#pragma once

#include <string>

namespace perfsage::cli {

// 785.3 µs, 12.35 ms, 1.23 s
std::string format_us(double us);
// 0.0317 -> "3.2 %"
std::string format_share(double share);

}  // namespace perfsage::cli
