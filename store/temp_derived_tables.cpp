#include "store/temp_derived_tables.h"

#include <sqlite3.h>

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
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

namespace {

// Calls `sink(i, value)` for each column of the current row, with the value's SQL type.
template <typename Sink>
void each_value(Statement& rows, int n, Sink&& sink) {
  for (int i = 0; i < n; ++i) {
    switch (rows.column_type(i)) {
      case SQLITE_INTEGER:
        sink(i, rows.int64(i));
        break;
      case SQLITE_FLOAT:
        sink(i, rows.real(i));
        break;
      case SQLITE_NULL:
        sink(i, std::nullopt);
        break;
      default:
        sink(i, rows.text_view(i));
    }
  }
}

// Rows a table's copy inserts one statement each before it batches the rest: most tables hold
// fewer, and a statement for many rows costs more to prepare than a few hundred steps (small
// runs' jobs in perfsaged were 10-20 % slower when every copy prepared one).
constexpr size_t kOneByOne = 256;

}  // namespace

void copy_run_rows(Database& from, Database& to, const DerivedTable& table, int64_t run_id) {
  to.prepare("DELETE FROM main." + table.name + " WHERE run_id = ?1").bind(1, run_id).run();
  std::vector<std::string> names = {"run_id"};
  std::string columns = "run_id";
  for (const Column& c : table.columns) {
    names.push_back(c.name);
    columns += ", " + c.name;
  }
  auto rows = from.prepare("SELECT " + columns + " FROM temp." + table.name + " ORDER BY rowid");
  if (!rows.step()) return;
  const int n = static_cast<int>(names.size());
  {
    auto insert = to.prepare(table.insert_sql());
    for (size_t copied = 0; copied < kOneByOne; ++copied) {
      each_value(rows, n, [&](int i, auto v) {
        if constexpr (std::is_same_v<decltype(v), std::nullopt_t>)
          insert.bind_null(i + 1);
        else
          insert.bind(i + 1, v);
      });
      insert.run();
      if (!rows.step()) return;
    }
  }
  size_t left = 1;  // this row at least
  {
    auto st = from.prepare("SELECT count(*) FROM temp." + table.name);
    if (st.step() && st.int64(0) > static_cast<int64_t>(kOneByOne))
      left = static_cast<size_t>(st.int64(0)) - kOneByOne;
  }
  BatchInsert insert(to, "main." + table.name, names, left);
  do {
    each_value(rows, n, [&](int, auto v) {
      if constexpr (std::is_same_v<decltype(v), std::nullopt_t>)
        insert.bind_null();
      else if constexpr (std::is_same_v<decltype(v), std::string_view>)
        insert.bind_text(v);
      else
        insert.bind(v);
    });
    insert.end_row();
  } while (rows.step());
  insert.finish();
}

}  // namespace perfsage::store
