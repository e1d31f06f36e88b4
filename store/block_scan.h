// Reads a run's rows of a block table (host_events, device_events, op_tasks) block by block in
// C++, without the virtual table: each column decoded once per block, no SQL value per cell.
// For analyzers that aggregate every row of a big run; SQL stays the interface for the rest.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/database.h"
#include "store/event_block.h"

namespace perfsage::store {

class BlockScan {
 public:
  // The blocks of `run_id` in `schema`'s table, in row order; of one kind only when given.
  // With `columns` (schema column names), only those columns' bytes are read from the store
  // (incremental blob I/O); reading another column throws StoreError.
  BlockScan(Database& db, const EventSchema& schema, int64_t run_id,
            std::optional<std::string> kind = std::nullopt,
            std::vector<std::string_view> columns = {});
  ~BlockScan();
  BlockScan(const BlockScan&) = delete;
  BlockScan& operator=(const BlockScan&) = delete;

  // Moves to the next block; false after the last. Throws StoreError on a damaged block.
  bool next();
  EventBlockReader& block() { return *reader_; }
  // The current block's kind ('' in a table without kinds).
  const std::string& kind() const { return kind_; }
  // The current block's recorded time span [min start, max end] (event_blocks), if any.
  std::optional<std::pair<int64_t, int64_t>> span() const { return span_; }
  // The rowid the virtual table gives row `row` of the current block.
  int64_t rowid(size_t row) const;

 private:
  Database& db_;
  const EventSchema& schema_;
  Statement blocks_;
  std::vector<bool> wanted_;  // empty: every column
  sqlite3_blob* blob_ = nullptr;
  std::string sparse_;  // the selected columns of the current block
  std::unique_ptr<EventBlockReader> reader_;
  int64_t block_rowid_ = 0;
  std::string kind_;
  std::optional<std::pair<int64_t, int64_t>> span_;
};

// How many rows the blocks of `run_id` in `schema`'s table hold (of one kind only when given),
// from event_blocks alone: for reserving what a scan collects.
size_t block_rows(Database& db, const EventSchema& schema, int64_t run_id,
                  std::optional<std::string> kind = std::nullopt);

// The index of column `name` in `schema`; throws StoreError when there is none.
int column_index(const EventSchema& schema, std::string_view name);

}  // namespace perfsage::store
