// A vector whose elements are reused: clear() keeps them (and their strings' capacity), next()
// hands out the next one, so filling batch after batch allocates nothing in the steady state.
#pragma once

#include <cstddef>
#include <vector>

namespace perfsage::collectors {

template <class T>
class Slots {
 public:
  // The next slot, holding whatever its previous use left: callers set every field.
  T& next() {
    if (used_ == items_.size()) items_.emplace_back();
    return items_[used_++];
  }
  size_t size() const { return used_; }
  // Drops the slots handed out after the first `n` (they stay allocated for reuse).
  void truncate(size_t n) {
    if (n < used_) used_ = n;
  }
  void clear() { used_ = 0; }
  const T* begin() const { return items_.data(); }
  const T* end() const { return items_.data() + used_; }

 private:
  std::vector<T> items_;
  size_t used_ = 0;
};

}  // namespace perfsage::collectors
