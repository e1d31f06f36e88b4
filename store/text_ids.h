// Texts interned once per scan of a run's events: names, shapes and types repeat as often as
// the events, so scans that group or sort by them keep 32-bit ids instead of strings.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/event_block.h"
#include "store/text_hash.h"

namespace perfsage::store {

class TextIds {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t id(std::string_view text);
  const std::string& text(uint32_t id) const { return *texts_[id]; }
  size_t size() const { return texts_.size(); }

 private:
  std::unordered_map<std::string, uint32_t, TextHash, std::equal_to<>> ids_;
  std::vector<const std::string*> texts_;
};

// The ids of one text column's values during a block scan: each distinct value of a block (its
// dictionary entry) is looked up once, instead of hashing the text on every row.
class BlockTextIds {
 public:
  BlockTextIds(TextIds& ids, int column) : ids_(ids), column_(column) {}
  // Call on every new block before at().
  void start_block(EventBlockReader& block);
  // The id of row `row`'s value; the caller checks is_null first.
  uint32_t at(EventBlockReader& block, size_t row);

 private:
  TextIds& ids_;
  const int column_;
  std::vector<uint32_t> by_index_;  // block dictionary index -> id, kNone until looked up
};

// A value worked out from each distinct value of one text column during a block scan (what a
// call's name makes it, whether a kernel is a collective's): once per block dictionary entry,
// on its first use, instead of a search over the text on every row; names repeat as often as
// the events.
template <typename T>
class BlockTextValues {
 public:
  explicit BlockTextValues(int column) : column_(column) {}
  // Call on every new block before at(); a block whose rows are all skipped is not decoded.
  void start_block() { sized_ = false; }
  // `of(text)` of row `row`'s value (a null row reads as the dictionary's first text, as
  // text_at gives it: callers that care check is_null first).
  template <typename Of>
  const T& at(EventBlockReader& block, size_t row, Of&& of) {
    if (!sized_) {
      values_.assign(block.dictionary_size(column_), std::nullopt);
      sized_ = true;
    }
    const uint32_t index = block.text_index_at(column_, row);
    std::optional<T>& value = values_[index];
    if (!value) value = of(block.dictionary_text(column_, index));
    return *value;
  }

 private:
  const int column_;
  bool sized_ = false;
  std::vector<std::optional<T>> values_;  // block dictionary index -> value, once worked out
};

}  // namespace perfsage::store
