// SQL's LIKE, for analyzers that classify names in C++ as a fact query did with LIKE: ASCII case
// folded, as SQLite compares by default.
#pragma once

#include <string_view>

namespace perfsage::analyzers {

inline char fold_ascii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// LIKE '%needle%'; `needle` in lower case.
inline bool contains_folded(std::string_view s, std::string_view needle) {
  for (size_t i = 0; i + needle.size() <= s.size(); ++i) {
    size_t j = 0;
    while (j < needle.size() && fold_ascii(s[i + j]) == needle[j]) ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

// LIKE 'prefix%'; `prefix` in lower case.
inline bool starts_folded(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (fold_ascii(s[i]) != prefix[i]) return false;
  return true;
}

}  // namespace perfsage::analyzers
