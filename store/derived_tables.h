// Derived tables: what analyzers compute from a run's raw records. Each table is declared once,
// in its analyzer's folder (<family>/tables.cpp): its columns with SQL type, unit and meaning.
// The DDL, the INSERT statement and its binder (RowInserter), plain projection facts
// (store/fact_type.h) and the tables' reference in docs/facts.md all come from that
// declaration. The store only makes sure that the tables exist with the declared shape. Raw
// record tables, results and the job and action tables stay in the migrations
// (store/schema.cpp), because their rows cannot be computed again.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "store/bind.h"
#include "store/database.h"

namespace perfsage::store {

enum class SqlType { Integer, Real, Text };

struct Column {
  std::string name;
  SqlType type = SqlType::Real;
  std::string unit;  // ns, us, bytes, count, ratio (0..1), or empty
  std::string doc;
  bool nullable = false;    // NULL means "not known", never zero
  std::string default_sql;  // the SQL DEFAULT, or empty for none
  bool symbol = false;      // TEXT that facts read as a CLIPS symbol (a closed set of words)

  Column&& or_null() && {
    nullable = true;
    return std::move(*this);
  }
  Column&& as_symbol() && {
    symbol = true;
    return std::move(*this);
  }
  Column&& with_default(std::string sql) && {
    default_sql = std::move(sql);
    return std::move(*this);
  }
};

inline Column integer(std::string name, std::string unit, std::string doc) {
  return {std::move(name), SqlType::Integer, std::move(unit), std::move(doc), false, "", false};
}
inline Column real(std::string name, std::string unit, std::string doc) {
  return {std::move(name), SqlType::Real, std::move(unit), std::move(doc), false, "", false};
}
inline Column text(std::string name, std::string doc) {
  return {std::move(name), SqlType::Text, "", std::move(doc), false, "", false};
}

const char* sql_type_name(SqlType t);  // INTEGER, REAL, TEXT

struct DerivedTable {
  std::string name;
  std::string doc;
  // The columns after run_id, which every derived table has first (INTEGER NOT NULL).
  std::vector<Column> columns;
  // Columns of the table's one index, named <name>_run; empty for none.
  std::vector<std::string> index;

  const Column* column(std::string_view n) const;
  // CREATE TABLE and CREATE INDEX. Throws StoreError when a name is not a plain identifier or a
  // column is declared twice.
  std::string ddl() const;
  // INSERT INTO name(run_id, columns...) VALUES(?1, ...): every column, in declaration order.
  std::string insert_sql() const;
};

// Inserts rows into one derived table: run id first, then one value per declared column, in
// declaration order (std::optional for nullable ones; text is bound without a copy). The number of
// values is checked against the declaration, so a column added to the declaration and not to the
// writer fails at once.
class RowInserter {
 public:
  RowInserter(Database& db, const DerivedTable& table)
      : table_(table), statement_(db.prepare(table.insert_sql())) {}

  template <typename... Values>
  void insert(int64_t run_id, const Values&... values) {
    if (sizeof...(Values) != table_.columns.size()) arity_error(sizeof...(Values));
    store::insert(statement_, run_id, values...);
  }

 private:
  [[noreturn]] void arity_error(size_t given) const;
  const DerivedTable& table_;
  Statement statement_;
};

// Creates the declared tables that are missing and re-creates those whose columns or indexes
// differ from their declaration (their rows are derived: the next analysis of a run writes them
// again). Tables that already match are left alone, so a read-only store passes when current.
// Returns the names of the tables created or re-created. Throws StoreError naming the table
// when a declaration is not valid.
std::vector<std::string> ensure_derived_tables(Database& db,
                                               const std::vector<DerivedTable>& tables);

// The shapes that ensure_derived_tables compares a store's tables with are learnt by executing
// each declaration in an empty in-memory database, once per process and declaration. A process
// that forks workers (the forkserver) learns them before forking, so that no job does it again.
void learn_declared_shapes(const std::vector<DerivedTable>& tables);

// Text for a cell of a Markdown table ('|' escaped): the tables' and the fact types' reference.
std::string markdown_cell(const std::string& s);

// Markdown reference of the tables (part of docs/facts.md): columns, types, units, meanings.
std::string tables_markdown(const std::vector<DerivedTable>& tables);

}  // namespace perfsage::store
