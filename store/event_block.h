// Column blocks of raw records. Host and device events (millions per Kineto trace) and Ascend
// op tasks (millions per op table) are stored as blocks of up to a few ten thousand rows of one
// run (and kind), one BLOB per block, column by column: integers as zig-zag deltas, text
// through a per-block dictionary. Writing a block costs a fraction of inserting its rows one by
// one into an indexed table, which is what bounded ingest speed; the host_events, device_events
// and op_tasks virtual tables (event_table.h) decode them again for SQL.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/text_hash.h"

namespace perfsage::store {

enum class ColumnType : uint8_t { kInt, kReal, kText };

struct EventColumn {
  const char* name;
  ColumnType type;
  bool defaults_to_zero = false;  // NULL on SQL INSERT stores 0 (rank: DEFAULT 0 in the schema)
};

// The SQL columns of one block table. Column 0 (run_id) and the kind column, where the table
// has one, are the block's key and are not stored in the block.
struct EventSchema {
  const char* table;  // host_events, device_events or op_tasks
  std::span<const EventColumn> columns;
  int kind_column;   // -1: no kind; blocks are keyed by run alone (kind '' in event_blocks)
  int start_column;  // start_ns and dur_ns: the block's time span
  int dur_column;
  bool is_key(int c) const { return c == kRunIdColumn || c == kind_column; }
  static constexpr int kRunIdColumn = 0;
};

const EventSchema& host_event_schema();
const EventSchema& device_event_schema();
const EventSchema& op_task_schema();
// Every table stored as blocks, for registration and migrations.
std::span<const EventSchema* const> block_schemas();

// A serialised block with what event_blocks stores beside it.
struct SealedBlock {
  size_t rows = 0;
  bool spanned = false;  // min_start / max_end are set
  int64_t min_start = 0, max_end = 0;
  std::string data;
};

// Accumulates rows of one block; set every stored column of a row, then end_row().
class EventBlockBuilder {
 public:
  explicit EventBlockBuilder(const EventSchema& schema);

  void set_int(int col, int64_t v);
  void set_real(int col, double v);
  void set_text(int col, std::string_view v);
  void set_null(int col);
  void end_row() { ++rows_; }
  // Widens the block's time span, [min start, max end], stored beside the block.
  void note_span(int64_t start_ns, int64_t end_ns) {
    if (!spanned_ || start_ns < min_start_) min_start_ = start_ns;
    if (!spanned_ || end_ns > max_end_) max_end_ = end_ns;
    spanned_ = true;
  }
  // False when no row of the block had a start time.
  bool spanned() const { return spanned_; }
  int64_t min_start() const { return min_start_; }
  int64_t max_end() const { return max_end_; }

  size_t rows() const { return rows_; }
  size_t bytes() const { return bytes_; }  // payload held so far, a flush trigger
  // Serialises the block and empties the builder for reuse.
  std::string finish();
  // The same, with the block's row count and span.
  SealedBlock seal();

 private:
  struct Column {
    explicit Column(ColumnType t) : type(t) {}
    ColumnType type;
    std::vector<uint8_t> present;  // one flag per row
    size_t nulls = 0;
    std::vector<int64_t> ints;
    std::vector<double> reals;
    std::vector<uint32_t> ids;  // text: dictionary index per non-null row
    std::unordered_map<std::string, uint32_t, TextHash, std::equal_to<>> dict;
    std::vector<const std::string*> dict_order;
    uint32_t last_id = UINT32_MAX;  // the value set last, when there is one
    void clear() {
      last_id = UINT32_MAX;
      present.clear();
      nulls = 0;
      ints.clear();
      reals.clear();
      ids.clear();
      dict.clear();
      dict_order.clear();
    }
  };
  Column& at(int col, ColumnType t);

  const EventSchema& schema_;
  std::vector<Column> cols_;
  std::string scratch_;  // one column's bytes while finishing
  size_t rows_ = 0;
  size_t bytes_ = 0;
  int64_t min_start_ = 0, max_end_ = 0;
  bool spanned_ = false;
};

// `block` with `delta` added to every value of integer column `col` (rows without a value stay
// without): only the column's first stored value changes, the rest are deltas. Throws
// StoreError on a malformed block.
std::string shift_int_column(const EventSchema& schema, std::string_view block, int col,
                             int64_t delta);

// A block holding the same rows with only the `wanted` columns' values (by schema column;
// reading another is an error, for a reader constructed with `sparse`), assembled from the stored
// block through `read(offset, length, out)`, so that a scan that needs a few integer columns does
// not fetch every column's bytes. `size` is the stored block's size. Throws StoreError on a
// malformed block.
std::string sparse_block(const EventSchema& schema, size_t size, const std::vector<bool>& wanted,
                         const std::function<void(size_t, size_t, char*)>& read);

// A decoded view of one serialised block; columns are decoded on first use. Text values point
// into the block's bytes, which must outlive the reader. Malformed bytes throw StoreError.
class EventBlockReader {
 public:
  // `sparse`: a block from sparse_block(), whose unselected columns throw when read.
  EventBlockReader(const EventSchema& schema, const uint8_t* data, size_t size,
                   bool sparse = false);

  // Column::tag values the inline accessors test (event_block.cpp has them all).
  static constexpr uint8_t kAllNullTag = 0, kNoNullsTag = 1;

  size_t rows() const { return rows_; }
  // Inline: scans call it and the accessors below for every cell of millions of rows.
  bool is_null(int col, size_t row) {
    const Column& c = cols_[static_cast<size_t>(col)];
    if (c.tag == kNoNullsTag) return false;
    if (c.decoded) return c.tag == kAllNullTag || !c.present[row];
    return is_null_first(col, row);
  }
  // True when no row of the block has a value in `col` (nothing to decode).
  bool all_null(int col) const;
  int64_t int_at(int col, size_t row) { return decoded(col).ints[row]; }
  double real_at(int col, size_t row) { return decoded(col).reals[row]; }
  std::string_view text_at(int col, size_t row) {
    auto& c = decoded(col);
    return c.dict[c.ids[row]];
  }
  // A text column as its block dictionary: the index of a row's value (0 for a null row) and
  // the distinct values, so that a scan interning names looks each one up once per block.
  uint32_t text_index_at(int col, size_t row) { return decoded(col).ids[row]; }
  size_t dictionary_size(int col) { return decoded(col).dict.size(); }
  std::string_view dictionary_text(int col, uint32_t index) { return decoded(col).dict[index]; }

 private:
  struct Column {
    uint8_t tag = 0;  // 0 all null, 1 no nulls, 2 bitmap follows
    const uint8_t* begin = nullptr;
    size_t size = 0;
    bool decoded = false;
    std::vector<uint8_t> present;
    std::vector<int64_t> ints;
    std::vector<double> reals;
    std::vector<std::string_view> dict;
    std::vector<uint32_t> ids;
  };
  Column& decoded(int col) {
    Column& c = cols_[static_cast<size_t>(col)];
    return c.decoded ? c : decode_first(col);
  }
  // The first read of a column: checks that it was selected, decodes it.
  Column& decode_first(int col);
  bool is_null_first(int col, size_t row);
  // The column, unless a sparse block left it out (StoreError).
  const Column& selected(int col) const;
  void decode(int col, Column& c);

  const EventSchema& schema_;
  size_t rows_ = 0;
  std::vector<Column> cols_;
};

}  // namespace perfsage::store
