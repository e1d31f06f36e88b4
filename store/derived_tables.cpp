#include "store/derived_tables.h"

#include <sqlite3.h>

#include <memory>

#include "store/database.h"

namespace perfsage::store {
namespace {

struct CloseSqlite {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
using SqliteHandle = std::unique_ptr<sqlite3, CloseSqlite>;

// A table's shape: its columns (name, type, not null, default, key) and its indexes (name,
// uniqueness, columns), as one comparable text. Empty when the table does not exist.
std::string table_shape(sqlite3* db, const std::string& table) {
  std::string shape;
  Statement columns(db,
                    "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1)");
  columns.bind(1, table);
  while (columns.step()) {
    shape += "c:" + columns.text(0) + ' ' + columns.text(1) + ' ' + columns.text(2) + ' ' +
             (columns.is_null(3) ? "-" : columns.text(3)) + ' ' + columns.text(4) + '\n';
  }
  if (shape.empty()) return shape;
  Statement indexes(db,
                    "SELECT name, \"unique\" FROM pragma_index_list(?1) WHERE origin = 'c' "
                    "ORDER BY name");
  indexes.bind(1, table);
  while (indexes.step()) {
    shape += "i:" + indexes.text(0) + ' ' + indexes.text(1);
    Statement keys(db, "SELECT name FROM pragma_index_info(?1) ORDER BY seqno");
    keys.bind(1, indexes.text(0));
    while (keys.step()) shape += ' ' + keys.text(0);
    shape += '\n';
  }
  return shape;
}

}  // namespace

std::vector<std::string> ensure_derived_tables(Database& db,
                                               const std::vector<DerivedTable>& tables) {
  // The declared shapes come from the declarations themselves, executed in an empty database.
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  SqliteHandle probe(raw);
  if (rc != SQLITE_OK) throw StoreError("cannot open an in-memory database to check tables");
  std::vector<std::string> changed;
  for (const DerivedTable& table : tables) {
    char* error = nullptr;
    if (sqlite3_exec(probe.get(), table.ddl.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      std::string message = error ? error : "unknown error";
      sqlite3_free(error);
      throw StoreError("derived table " + table.name + ": its declaration fails: " + message);
    }
    std::string declared = table_shape(probe.get(), table.name);
    if (declared.empty()) {
      throw StoreError("derived table " + table.name + ": its declaration creates no such table");
    }
    if (table_shape(db.handle(), table.name) == declared) continue;
    Transaction txn(db);
    // Again under the write lock: another perfsage opening the store may have just done it.
    if (table_shape(db.handle(), table.name) == declared) continue;
    db.exec("DROP TABLE IF EXISTS \"" + table.name + "\"");
    db.exec(table.ddl);
    // The stored runs' rows of this table are gone: a run is complete again only once
    // analysed again (app/analysis.cpp does that when it is next used).
    db.exec("UPDATE runs SET status = 'ingested' WHERE status = 'analyzed'");
    txn.commit();
    changed.push_back(table.name);
  }
  return changed;
}

}  // namespace perfsage::store
