#include "store/batch_insert.h"

#include <algorithm>
#include <utility>

namespace perfsage::store {
namespace {

// At most 999 parameters per statement (SQLite's default limit before 3.32).
int rows_for(size_t columns) {
  return std::max(1, std::min(249, 999 / static_cast<int>(std::max<size_t>(columns, 1))));
}

// INSERT INTO table(columns) for `rows` rows; a batch (rows > 1) leaves out rows whose first
// column is NULL, so that a partly filled statement inserts only the rows bound.
std::string insert_sql(std::string_view table, const std::vector<std::string>& columns, int rows) {
  std::string names, row = "(";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) {
      names += ", ";
      row += ",";
    }
    names += columns[i];
    row += "?";
  }
  row += ")";
  std::string sql = "INSERT INTO ";
  sql.append(table);
  sql += "(" + names + ") ";
  if (rows == 1) return sql + "VALUES" + row;
  sql += "SELECT * FROM (VALUES ";
  for (int r = 0; r < rows; ++r) {
    if (r > 0) sql += ",";
    sql += row;
  }
  return sql + ") WHERE column1 IS NOT NULL";
}

}  // namespace

BatchInsert::BatchInsert(Database& db, std::string_view table, std::vector<std::string> columns)
    : db_(db),
      table_(table),
      columns_names_(std::move(columns)),
      columns_(static_cast<int>(columns_names_.size())),
      rows_per_statement_(rows_for(columns_names_.size())),
      single_(db.prepare(insert_sql(table_, columns_names_, 1))) {}

void BatchInsert::end_row() {
  bound_ = 0;
  if (!batch_) {
    single_.run();
    if (++rows_ == kOneByOne)
      batch_.emplace(db_.prepare(insert_sql(table_, columns_names_, rows_per_statement_)));
    return;
  }
  if (++pending_ < rows_per_statement_) return;
  batch_->run();
  pending_ = 0;
}

void BatchInsert::finish() {
  if (!batch_ || pending_ == 0) return;
  for (int r = pending_; r < rows_per_statement_; ++r) batch_->bind_null(r * columns_ + 1);
  batch_->run();
  pending_ = 0;
  bound_ = 0;
}

}  // namespace perfsage::store
