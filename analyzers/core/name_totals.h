// Per-name totals of (name, dur_ns) rows, summed in a hash map. SQLite answers GROUP BY by
// sorting every row; over millions of events with long names (CUDA kernel names run to hundreds
// of bytes) that sort dominated several analyzers, while the distinct names are a few hundred.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/database.h"
#include "store/text_hash.h"

namespace perfsage::analyzers {

struct NameTotal {
  std::string name;
  int64_t count = 0;
  int64_t dur_ns = 0;
  int64_t over = 0;  // rows longer than the threshold
};

// Longest total first, ties by name, so the order does not depend on a hash.
inline void sort_by_total(std::vector<NameTotal>& totals) {
  std::sort(totals.begin(), totals.end(), [](const NameTotal& a, const NameTotal& b) {
    return a.dur_ns != b.dur_ns ? a.dur_ns > b.dur_ns : a.name < b.name;
  });
}

// Steps `rows` (column 0: name, column 1: dur_ns) to the end; returns one total per name,
// longest total first (ties by name, so the order does not depend on the hash).
inline std::vector<NameTotal> totals_by_name(
    store::Statement& rows, int64_t over_ns = std::numeric_limits<int64_t>::max()) {
  std::unordered_map<std::string, NameTotal, store::TextHash, std::equal_to<>> by_name;
  while (rows.step()) {
    std::string_view name = rows.text_view(0);
    auto it = by_name.find(name);
    if (it == by_name.end())
      it = by_name.emplace(std::string(name), NameTotal{std::string(name)}).first;
    int64_t dur = rows.int64(1);
    ++it->second.count;
    it->second.dur_ns += dur;
    if (dur > over_ns) ++it->second.over;
  }
  std::vector<NameTotal> out;
  out.reserve(by_name.size());
  for (auto& [_, t] : by_name) out.push_back(std::move(t));
  sort_by_total(out);
  return out;
}

}  // namespace perfsage::analyzers
