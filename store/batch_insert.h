// Inserts many rows into one table through a statement that takes many rows at once: a
// statement's step costs more than binding a row (SQLite opens the table's and indexes'
// cursors again on every step), so inserting the 426 k launch links of a 1 GB trace one row per
// step took 2.5 times as long as an INSERT ... SELECT of the same rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/database.h"

namespace perfsage::store {

class BatchInsert {
 public:
  // INSERT INTO `table`(`columns`...). The first column must be NOT NULL in every row (a run
  // id): a statement's unused rows are bound NULL there and left out. `rows` (when known): how
  // many rows will be inserted, so that a few rows do not cost preparing a statement for many.
  BatchInsert(Database& db, std::string_view table, const std::vector<std::string>& columns,
              size_t rows = SIZE_MAX);

  // The next row's values, one call per column in order; then end_row().
  void bind(int64_t value) { statement_.bind(next(), value); }
  void bind(double value) { statement_.bind(next(), value); }
  void bind_text(std::string_view value) { statement_.bind(next(), value); }
  void bind_null() { statement_.bind_null(next()); }
  // Steps the statement when it holds as many rows as it takes.
  void end_row();
  // Inserts the rows still pending. Call before committing; the destructor does not.
  void finish();

  int rows_per_statement() const { return rows_per_statement_; }

 private:
  int next() { return pending_ * columns_ + ++bound_; }

  const int columns_;
  const int rows_per_statement_;
  Statement statement_;
  int pending_ = 0;  // complete rows bound
  int bound_ = 0;    // values bound in the row being bound
};

}  // namespace perfsage::store
