#include "store/text_ids.h"

namespace perfsage::store {

uint32_t TextIds::id(std::string_view text) {
  auto it = ids_.find(text);
  if (it == ids_.end()) {
    it = ids_.emplace(std::string(text), static_cast<uint32_t>(texts_.size())).first;
    texts_.push_back(&it->first);
  }
  return it->second;
}

void BlockTextIds::start_block(EventBlockReader& block) {
  by_index_.assign(block.dictionary_size(column_), TextIds::kNone);
}

uint32_t BlockTextIds::at(EventBlockReader& block, size_t row) {
  uint32_t index = block.text_index_at(column_, row);
  uint32_t& id = by_index_[index];
  if (id == TextIds::kNone) id = ids_.id(block.dictionary_text(column_, index));
  return id;
}

}  // namespace perfsage::store
