#include "store/batch_insert.h"

#include <algorithm>

namespace perfsage::store {
namespace {

// At most 999 parameters per statement (SQLite's default limit before 3.32), and no more rows
// than will be inserted.
int rows_for(size_t columns, size_t rows) {
  const int most = std::max(1, std::min(249, 999 / static_cast<int>(std::max<size_t>(columns, 1))));
  return static_cast<int>(std::clamp<size_t>(rows, 1, static_cast<size_t>(most)));
}

std::string batch_sql(std::string_view table, const std::vector<std::string>& columns, int rows) {
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
  sql += "(" + names + ") SELECT * FROM (VALUES ";
  for (int r = 0; r < rows; ++r) {
    if (r > 0) sql += ",";
    sql += row;
  }
  // Rows in the order bound; a partly filled statement's unused rows have a NULL first column.
  sql += ") WHERE column1 IS NOT NULL";
  return sql;
}

}  // namespace

BatchInsert::BatchInsert(Database& db, std::string_view table,
                         const std::vector<std::string>& columns, size_t rows)
    : columns_(static_cast<int>(columns.size())),
      rows_per_statement_(rows_for(columns.size(), rows)),
      statement_(db.prepare(batch_sql(table, columns, rows_per_statement_))) {}

void BatchInsert::end_row() {
  bound_ = 0;
  if (++pending_ < rows_per_statement_) return;
  statement_.run();
  pending_ = 0;
}

void BatchInsert::finish() {
  if (pending_ == 0) return;
  for (int r = pending_; r < rows_per_statement_; ++r) statement_.bind_null(r * columns_ + 1);
  statement_.run();
  pending_ = 0;
  bound_ = 0;
}

}  // namespace perfsage::store
