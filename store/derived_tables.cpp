#include "store/derived_tables.h"

#include <sqlite3.h>

#include <cctype>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

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

// Declaration (its DDL) -> the shape it gives, learnt once per process.
std::mutex g_shapes_mutex;
std::map<std::string, std::string> g_declared_shapes;

// The shape `table`'s declaration gives; `probe` is an empty in-memory database, opened on first
// need.
std::string declared_shape(const DerivedTable& table, SqliteHandle& probe) {
  const std::string ddl = table.ddl();
  std::lock_guard lock(g_shapes_mutex);
  if (auto it = g_declared_shapes.find(ddl); it != g_declared_shapes.end()) return it->second;
  if (!probe) {
    sqlite3* raw = nullptr;
    int rc = sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    probe.reset(raw);
    if (rc != SQLITE_OK) throw StoreError("cannot open an in-memory database to check tables");
  }
  char* error = nullptr;
  if (sqlite3_exec(probe.get(), ddl.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error ? error : "unknown error";
    sqlite3_free(error);
    throw StoreError("derived table " + table.name + ": its declaration fails: " + message);
  }
  std::string shape = table_shape(probe.get(), table.name);
  if (shape.empty())
    throw StoreError("derived table " + table.name + ": its declaration creates no such table");
  return g_declared_shapes.emplace(ddl, shape).first->second;
}

bool identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

}  // namespace

const char* sql_type_name(SqlType t) {
  switch (t) {
    case SqlType::Integer:
      return "INTEGER";
    case SqlType::Real:
      return "REAL";
    case SqlType::Text:
      return "TEXT";
  }
  return "?";
}

const Column* DerivedTable::column(std::string_view n) const {
  for (const auto& c : columns)
    if (c.name == n) return &c;
  return nullptr;
}

std::string DerivedTable::ddl() const {
  auto fail = [&](const std::string& why) -> std::string {
    throw StoreError("derived table " + name + ": " + why);
  };
  if (!identifier(name)) return fail("the name is not a plain identifier");
  std::set<std::string> seen{"run_id"};
  std::string sql = "CREATE TABLE " + name + "(\n  run_id INTEGER NOT NULL";
  for (const auto& c : columns) {
    if (!identifier(c.name)) return fail("column '" + c.name + "' is not a plain identifier");
    if (!seen.insert(c.name).second) return fail("column '" + c.name + "' is declared twice");
    sql += ",\n  " + c.name + ' ' + sql_type_name(c.type);
    if (!c.nullable) sql += " NOT NULL";
    if (!c.default_sql.empty()) sql += " DEFAULT " + c.default_sql;
  }
  sql += ");\n";
  if (!index.empty()) {
    sql += "CREATE INDEX " + name + "_run ON " + name + "(";
    for (size_t i = 0; i < index.size(); ++i) {
      if (!seen.count(index[i])) return fail("its index names no column '" + index[i] + "'");
      sql += (i ? ", " : "") + index[i];
    }
    sql += ");\n";
  }
  return sql;
}

std::string DerivedTable::insert_sql() const {
  std::string cols = "run_id", params = "?1";
  for (size_t i = 0; i < columns.size(); ++i) {
    cols += ", " + columns[i].name;
    params += ",?" + std::to_string(i + 2);
  }
  return "INSERT INTO " + name + "(" + cols + ") VALUES(" + params + ")";
}

void RowInserter::arity_error(size_t given) const {
  throw std::logic_error("derived table " + table_.name + " declares " +
                         std::to_string(table_.columns.size()) + " columns after run_id, " +
                         std::to_string(given) + " values given");
}

void learn_declared_shapes(const std::vector<DerivedTable>& tables) {
  SqliteHandle probe;
  for (const DerivedTable& table : tables) declared_shape(table, probe);
}

std::vector<std::string> ensure_derived_tables(Database& db,
                                               const std::vector<DerivedTable>& tables) {
  // The declared shapes come from the declarations themselves, executed in an empty database.
  SqliteHandle probe;
  std::vector<std::string> changed;
  for (const DerivedTable& table : tables) {
    const std::string ddl = table.ddl();
    const std::string declared = declared_shape(table, probe);
    if (table_shape(db.handle(), table.name) == declared) continue;
    Transaction txn(db);
    // Again under the write lock: another perfsage opening the store may have just done it.
    if (table_shape(db.handle(), table.name) == declared) continue;
    db.exec("DROP TABLE IF EXISTS \"" + table.name + "\"");
    db.exec(ddl);
    // The stored runs' rows of this table are gone: a run is complete again only once
    // analysed again (app/analysis.cpp does that when it is next used).
    db.exec("UPDATE runs SET status = 'ingested' WHERE status = 'analyzed'");
    txn.commit();
    changed.push_back(table.name);
  }
  return changed;
}

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string tables_markdown(const std::vector<DerivedTable>& tables) {
  std::ostringstream o;
  o << "# Derived tables\n\n"
       "What the analyzers write for each run, declared once in `analyzers/*/tables.cpp` (the\n"
       "DDL, the inserts and this page come from the declaration). Fact queries read them;\n"
       "`perfsage query` shows them. Every table starts with `run_id`. NULL means not known.\n\n";
  for (const auto& t : tables) {
    o << "## `" << t.name << "`\n\n" << t.doc << "\n\n";
    o << "| column | type | unit | meaning |\n|---|---|---|---|\n";
    for (const auto& c : t.columns) {
      o << "| `" << c.name << "` | " << sql_type_name(c.type) << (c.nullable ? "" : " NOT NULL")
        << " | " << c.unit << " | " << markdown_cell(c.doc) << " |\n";
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace perfsage::store
