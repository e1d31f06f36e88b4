// Transparent string hashing for unordered containers keyed by std::string: lookups take a
// std::string_view (a column's text as SQLite hands it out) without building a string first.
#pragma once

#include <functional>
#include <string_view>

namespace perfsage::store {

struct TextHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace perfsage::store
