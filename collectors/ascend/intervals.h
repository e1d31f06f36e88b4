// Interval arithmetic for per-step breakdowns: how much of [lo, hi) a set of possibly
// overlapping or nested spans covers, each instant counted once.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace perfsage::collectors::ascend {

using Span = std::pair<int64_t, int64_t>;  // [begin, end) in ns

class SpanSet {
 public:
  void add(int64_t begin, int64_t end) {
    if (end > begin) spans_.emplace_back(begin, end);
  }
  bool empty() const { return spans_.empty(); }
  // Merges overlapping spans; call once after the last add().
  void seal();
  // Covered length inside [lo, hi), in ns. Requires seal().
  int64_t covered(int64_t lo, int64_t hi) const;

 private:
  std::vector<Span> spans_;
};

}  // namespace perfsage::collectors::ascend
