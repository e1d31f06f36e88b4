// Sorting a run's tasks or ops by stream, then by start. A general sort of a million entries
// compares every one with its whole key; but the entries come in few streams, and within a
// stream mostly in start order already. So they are bucketed by stream in one pass (keeping
// their order), and a stream is sorted only when it is not in order yet.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

namespace perfsage::analyzers {

// Sorts `items` as std::stable_sort would by (key_of(item), then `earlier` within a key): keys
// ascending, a key's items by `earlier`, ties in their order in `items`.
template <class T, class KeyOf, class Earlier>
void sort_by_stream(std::vector<T>& items, KeyOf key_of, Earlier earlier) {
  using Key = decltype(key_of(items.front()));
  if (items.empty()) return;
  if (items.size() > UINT32_MAX) throw std::length_error("sort_by_stream: too many items");
  std::map<Key, size_t> bucket_of;             // key -> its bucket, numbered in order of appearance
  std::vector<uint32_t> bucket(items.size());  // few streams: 4 bytes an item
  std::vector<size_t> counts;
  auto last = bucket_of.end();
  for (size_t i = 0; i < items.size(); ++i) {
    Key k = key_of(items[i]);
    if (last == bucket_of.end() || last->first != k) {
      last = bucket_of.try_emplace(k, counts.size()).first;
      if (last->second == counts.size()) counts.push_back(0);
    }
    bucket[i] = static_cast<uint32_t>(last->second);
    ++counts[last->second];
  }
  // Each bucket's first place in key order.
  std::vector<size_t> begin(counts.size());
  size_t at = 0;
  for (const auto& [k, b] : bucket_of) {
    begin[b] = at;
    at += counts[b];
  }
  // Each item's place, then the items moved there in place, cycle by cycle: a sorted copy
  // would hold a second copy of a million items.
  std::vector<size_t> next = begin;
  std::vector<uint32_t>& place = bucket;
  for (size_t i = 0; i < items.size(); ++i) place[i] = static_cast<uint32_t>(next[bucket[i]]++);
  for (size_t i = 0; i < items.size(); ++i)
    while (place[i] != i) {
      const uint32_t to = place[i];
      std::swap(items[i], items[to]);
      std::swap(place[i], place[to]);
    }
  for (size_t b = 0; b < counts.size(); ++b) {
    auto first = items.begin() + static_cast<std::ptrdiff_t>(begin[b]);
    auto end = first + static_cast<std::ptrdiff_t>(counts[b]);
    if (!std::is_sorted(first, end, earlier)) std::stable_sort(first, end, earlier);
  }
}

}  // namespace perfsage::analyzers
