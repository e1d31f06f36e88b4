// A count with its noun in the right number ("1 finding", "3 findings"), for every text a
// person reads: reports, messages, logs. Never "1 findings" nor "finding(s)".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace perfsage::store {

// `plural` defaults to the noun with "s" added; give it for the others ("child", "children").
inline std::string count_text(int64_t n, std::string_view noun, std::string_view plural = {}) {
  std::string out = std::to_string(n) + " ";
  if (n == 1 || n == -1) return out + std::string(noun);
  return plural.empty() ? out + std::string(noun) + "s" : out + std::string(plural);
}

}  // namespace perfsage::store
