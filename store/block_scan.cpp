#include "store/block_scan.h"

#include "store/event_row_insert.h"

namespace perfsage::store {

BlockScan::BlockScan(Database& db, const EventSchema& schema, int64_t run_id,
                     std::optional<std::string> kind, std::vector<std::string_view> columns)
    : db_(db),
      schema_(schema),
      blocks_(db.prepare(std::string("SELECT rowid, ") + (columns.empty() ? "data" : "NULL") +
                         ", kind, min_start_ns, max_end_ns FROM event_blocks WHERE side = ?1 "
                         "AND run_id = ?2" +
                         (kind ? " AND kind = ?3" : "") + " ORDER BY run_id, kind, seq")) {
  blocks_.bind(1, std::string_view(schema.table)).bind(2, run_id);
  if (kind) blocks_.bind(3, *kind);
  if (!columns.empty()) {
    wanted_.assign(schema.columns.size(), false);
    for (auto name : columns) wanted_[static_cast<size_t>(column_index(schema, name))] = true;
  }
}

BlockScan::~BlockScan() {
  if (blob_ != nullptr) sqlite3_blob_close(blob_);
}

bool BlockScan::next() {
  reader_.reset();
  while (blocks_.step()) {
    block_rowid_ = blocks_.int64(0);
    kind_ = blocks_.text_view(2);
    span_.reset();
    if (!blocks_.is_null(3) && !blocks_.is_null(4))
      span_.emplace(blocks_.int64(3), blocks_.int64(4));
    if (wanted_.empty()) {
      std::string_view data = blocks_.blob_view(1);
      reader_ = std::make_unique<EventBlockReader>(
          schema_, reinterpret_cast<const uint8_t*>(data.data()), data.size());
    } else {
      int rc = blob_ == nullptr ? sqlite3_blob_open(db_.handle(), "main", "event_blocks", "data",
                                                    block_rowid_, 0, &blob_)
                                : sqlite3_blob_reopen(blob_, block_rowid_);
      if (rc != SQLITE_OK)
        throw StoreError("event block " + std::to_string(block_rowid_) + ": " +
                         sqlite3_errmsg(db_.handle()));
      auto size = static_cast<size_t>(sqlite3_blob_bytes(blob_));
      sparse_ = sparse_block(schema_, size, wanted_, [&](size_t at, size_t n, char* out) {
        if (n == 0) return;
        if (sqlite3_blob_read(blob_, out, static_cast<int>(n), static_cast<int>(at)) != SQLITE_OK)
          throw StoreError("event block " + std::to_string(block_rowid_) + ": cannot read " +
                           std::to_string(n) + " bytes at offset " + std::to_string(at));
      });
      reader_ = std::make_unique<EventBlockReader>(
          schema_, reinterpret_cast<const uint8_t*>(sparse_.data()), sparse_.size(), true);
    }
    if (reader_->rows() > 0) return true;
  }
  reader_.reset();
  return false;
}

int64_t BlockScan::rowid(size_t row) const {
  return (block_rowid_ << kRowBits) | static_cast<int64_t>(row);
}

size_t block_rows(Database& db, const EventSchema& schema, int64_t run_id,
                  std::optional<std::string> kind) {
  auto st = db.prepare(std::string("SELECT total(rows) FROM event_blocks WHERE side = ?1 AND "
                                   "run_id = ?2") +
                       (kind ? " AND kind = ?3" : ""));
  st.bind(1, std::string_view(schema.table)).bind(2, run_id);
  if (kind) st.bind(3, *kind);
  st.step();
  return static_cast<size_t>(st.real(0));
}

int column_index(const EventSchema& schema, std::string_view name) {
  for (size_t i = 0; i < schema.columns.size(); ++i)
    if (name == schema.columns[i].name) return static_cast<int>(i);
  throw StoreError(std::string(schema.table) + " has no column " + std::string(name));
}

}  // namespace perfsage::store
