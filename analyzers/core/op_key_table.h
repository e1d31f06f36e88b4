// A hash table from OpKey (rank, id) to a value, with open addressing: the launch pass looks up a
// million CPU ops among a few hundred thousand launching ones, and std::unordered_map's node per
// entry and prime modulus cost a cache miss and a division on every lookup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "analyzers/core/launch_ops.h"

namespace perfsage::analyzers {

template <typename V>
class OpKeyTable {
 public:
  // Room for `expected` keys without growing.
  explicit OpKeyTable(size_t expected = 0) { resize(expected); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The value of `key`, value-initialised when the key is new.
  V& operator[](const OpKey& key) {
    if ((size_ + 1) * 2 > slots_.size()) resize(slots_.size());
    Slot& s = slot(key);
    if (!s.used) {
      s = {key, V{}, true};
      ++size_;
    }
    return s.value;
  }
  // The value of `key`, or null.
  V* find(const OpKey& key) {
    Slot& s = slot(key);
    return s.used ? &s.value : nullptr;
  }
  bool contains(const OpKey& key) const { return slots_[index(key)].used; }

 private:
  struct Slot {
    OpKey key;
    V value{};
    bool used = false;
  };
  // The index of the key's slot, or of the empty one where it would go (the table is never
  // full).
  size_t index(const OpKey& key) const {
    uint64_t h = static_cast<uint64_t>(key.id) * 0x9E3779B97F4A7C15ull ^
                 static_cast<uint64_t>(key.rank) * 0xC2B2AE3D27D4EB4Full;
    size_t i = static_cast<size_t>(h ^ (h >> 29)) & (slots_.size() - 1);
    while (slots_[i].used && !(slots_[i].key == key)) i = (i + 1) & (slots_.size() - 1);
    return i;
  }
  Slot& slot(const OpKey& key) { return slots_[index(key)]; }
  // At least twice `keys` slots, a power of two; the entries moved over.
  void resize(size_t keys) {
    size_t n = 16;
    while (n < keys * 2) n <<= 1;
    std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(n));
    for (Slot& s : old)
      if (s.used) slot(s.key) = std::move(s);
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace perfsage::analyzers
