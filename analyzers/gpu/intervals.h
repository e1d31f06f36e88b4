// Interval arithmetic for GPU timelines: union length and intersection of sorted unions.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace perfsage::analyzers::gpu {

using Interval = std::pair<int64_t, int64_t>;  // [start, end) in ns

// Sorts and merges overlapping or touching intervals in place.
void merge(std::vector<Interval>& v);
// Total length of merged intervals.
int64_t length(const std::vector<Interval>& merged);
// Length of the intersection of two merged interval lists.
int64_t intersection(const std::vector<Interval>& a, const std::vector<Interval>& b);

}  // namespace perfsage::analyzers::gpu
