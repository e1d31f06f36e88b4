#include "collectors/ascend/intervals.h"

#include <algorithm>

namespace perfsage::collectors::ascend {

void SpanSet::seal() {
  std::sort(spans_.begin(), spans_.end());
  std::vector<Span> merged;
  for (const auto& s : spans_) {
    if (!merged.empty() && s.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, s.second);
    } else {
      merged.push_back(s);
    }
  }
  spans_ = std::move(merged);
}

int64_t SpanSet::covered(int64_t lo, int64_t hi) const {
  // First span that ends after lo; spans are disjoint and sorted after seal().
  auto it = std::lower_bound(spans_.begin(), spans_.end(), lo,
                             [](const Span& s, int64_t v) { return s.second <= v; });
  int64_t total = 0;
  for (; it != spans_.end() && it->first < hi; ++it) {
    total += std::min(it->second, hi) - std::max(it->first, lo);
  }
  return total;
}

}  // namespace perfsage::collectors::ascend
