#include "store/block_scan.h"

#include "store/event_row_insert.h"

namespace perfsage::store {

BlockScan::BlockScan(Database& db, const EventSchema& schema, int64_t run_id,
                     std::optional<std::string> kind)
    : schema_(schema),
      blocks_(db.prepare(std::string("SELECT rowid, data FROM event_blocks WHERE side = ?1 AND "
                                     "run_id = ?2") +
                         (kind ? " AND kind = ?3" : "") + " ORDER BY run_id, kind, seq")) {
  blocks_.bind(1, std::string_view(schema.table)).bind(2, run_id);
  if (kind) blocks_.bind(3, *kind);
}

bool BlockScan::next() {
  reader_.reset();
  while (blocks_.step()) {
    block_rowid_ = blocks_.int64(0);
    std::string_view data = blocks_.blob_view(1);
    reader_ = std::make_unique<EventBlockReader>(
        schema_, reinterpret_cast<const uint8_t*>(data.data()), data.size());
    if (reader_->rows() > 0) return true;
  }
  reader_.reset();
  return false;
}

int64_t BlockScan::rowid(size_t row) const {
  return (block_rowid_ << kRowBits) | static_cast<int64_t>(row);
}

int column_index(const EventSchema& schema, std::string_view name) {
  for (size_t i = 0; i < schema.columns.size(); ++i)
    if (name == schema.columns[i].name) return static_cast<int>(i);
  throw StoreError(std::string(schema.table) + " has no column " + std::string(name));
}

}  // namespace perfsage::store
