// Inserts many rows into one table: the first few one statement each, the rest through a
// statement that takes many rows at once. A statement's step costs more than binding a row
// (SQLite opens the table's and indexes' cursors again on every step), so inserting the 426 k
// launch links of a 1 GB trace one row per step took twice as long; but a statement for many
// rows costs more to prepare than a few hundred steps, and most tables hold a few rows
// (perfsaged's small jobs were 10-20 % slower when every table's rows went through one).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/database.h"

namespace perfsage::store {

class BatchInsert {
 public:
  // Rows inserted one statement each before the rest are batched.
  static constexpr int kOneByOne = 256;

  // INSERT INTO `table`(`columns`...). The first column must be NOT NULL in every row (a run
  // id): a batch statement's unused rows are bound NULL there and left out.
  BatchInsert(Database& db, std::string_view table, std::vector<std::string> columns);

  // The next row's values, one call per column in order; then end_row().
  void bind(int64_t value) { current().bind(next(), value); }
  void bind(double value) { current().bind(next(), value); }
  void bind_text(std::string_view value) { current().bind(next(), value); }
  void bind_null() { current().bind_null(next()); }
  // Inserts the row, or steps the batch statement when it holds as many rows as it takes.
  void end_row();
  // Inserts the rows still pending. Call before committing; the destructor does not.
  void finish();

  // Rows a batch statement takes: at most 249, and at most 999 parameters.
  int rows_per_statement() const { return rows_per_statement_; }
  // Whether the rows now go through the batch statement.
  bool batching() const { return batch_.has_value(); }

 private:
  Statement& current() { return batch_ ? *batch_ : single_; }
  int next() { return (batch_ ? pending_ * columns_ : 0) + ++bound_; }

  Database& db_;
  const std::string table_;
  const std::vector<std::string> columns_names_;
  const int columns_;
  const int rows_per_statement_;
  Statement single_;
  std::optional<Statement> batch_;  // prepared once kOneByOne rows are in
  int64_t rows_ = 0;                // rows inserted one by one
  int pending_ = 0;                 // complete rows bound to the batch statement
  int bound_ = 0;                   // values bound in the row being bound
};

}  // namespace perfsage::store
