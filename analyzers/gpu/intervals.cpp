#include "analyzers/gpu/intervals.h"

#include <algorithm>

namespace perfsage::analyzers::gpu {

void merge(std::vector<Interval>& v) {
  // Activities are mostly added in start order: checking costs less than sorting sorted input.
  if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
  size_t out = 0;
  for (const auto& iv : v) {
    if (iv.second <= iv.first) continue;
    if (out > 0 && iv.first <= v[out - 1].second) {
      v[out - 1].second = std::max(v[out - 1].second, iv.second);
    } else {
      v[out++] = iv;
    }
  }
  v.resize(out);
}

int64_t length(const std::vector<Interval>& merged) {
  int64_t total = 0;
  for (const auto& [s, e] : merged) total += e - s;
  return total;
}

int64_t intersection(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  int64_t total = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t s = std::max(a[i].first, b[j].first), e = std::min(a[i].second, b[j].second);
    if (e > s) total += e - s;
    if (a[i].second < b[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

}  // namespace perfsage::analyzers::gpu
