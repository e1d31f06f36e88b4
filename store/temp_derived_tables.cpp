#include "store/temp_derived_tables.h"

#include <sqlite3.h>

#include <string>
#include <utility>
#include <vector>

#include "store/batch_insert.h"

namespace perfsage::store {

void create_temp_tables(Database& reader, const std::vector<DerivedTable>& tables) {
  for (const DerivedTable& t : tables) {
    std::string ddl = t.ddl();
    // The CREATE TABLE statement only: an index of a few rows would not pay for itself.
    ddl.resize(ddl.find(");\n") + 2);
    reader.exec("CREATE TEMP TABLE " + ddl.substr(std::string("CREATE TABLE ").size()));
  }
}

void copy_run_rows(Database& from, Database& to, const DerivedTable& table, int64_t run_id) {
  to.prepare("DELETE FROM main." + table.name + " WHERE run_id = ?1").bind(1, run_id).run();
  std::vector<std::string> names = {"run_id"};
  std::string columns = "run_id";
  for (const Column& c : table.columns) {
    names.push_back(c.name);
    columns += ", " + c.name;
  }
  auto rows = from.prepare("SELECT " + columns + " FROM temp." + table.name + " ORDER BY rowid");
  BatchInsert insert(to, "main." + table.name, std::move(names));
  const int n = static_cast<int>(table.columns.size()) + 1;
  while (rows.step()) {
    for (int i = 0; i < n; ++i) {
      switch (rows.column_type(i)) {
        case SQLITE_INTEGER:
          insert.bind(rows.int64(i));
          break;
        case SQLITE_FLOAT:
          insert.bind(rows.real(i));
          break;
        case SQLITE_NULL:
          insert.bind_null();
          break;
        default:
          insert.bind_text(rows.text_view(i));
      }
    }
    insert.end_row();
  }
  insert.finish();
}

}  // namespace perfsage::store
