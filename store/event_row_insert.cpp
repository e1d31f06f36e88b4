#include "store/event_row_insert.h"

#include <memory>

namespace perfsage::store {
namespace {

using StmtPtr = std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)>;

StmtPtr prepare(sqlite3* db, const char* sql) {
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, sql, -1, &st, nullptr);
  return StmtPtr(st, sqlite3_finalize);
}

// Applies the column's affinity the way an ordinary table would ('5' into an INTEGER column is
// 5); a value that does not convert is an error rather than a silently retyped cell.
bool put(EventBlockBuilder& b, int col, ColumnType type, sqlite3_value* v) {
  if (sqlite3_value_type(v) == SQLITE_NULL) {
    b.set_null(col);
    return true;
  }
  switch (type) {
    case ColumnType::kInt: {
      int t = sqlite3_value_numeric_type(v);
      if (t == SQLITE_INTEGER) {
        b.set_int(col, sqlite3_value_int64(v));
        return true;
      }
      if (t == SQLITE_FLOAT) {
        double d = sqlite3_value_double(v);
        auto i = static_cast<int64_t>(d);
        if (static_cast<double>(i) != d) return false;
        b.set_int(col, i);
        return true;
      }
      return false;
    }
    case ColumnType::kReal: {
      int t = sqlite3_value_numeric_type(v);
      if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) return false;
      b.set_real(col, sqlite3_value_double(v));
      return true;
    }
    case ColumnType::kText: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(v));
      if (text == nullptr) return false;
      b.set_text(col, std::string_view(text, static_cast<size_t>(sqlite3_value_bytes(v))));
      return true;
    }
  }
  return false;
}

const char* type_name(ColumnType t) {
  return t == ColumnType::kInt ? "INTEGER" : t == ColumnType::kReal ? "REAL" : "TEXT";
}

}  // namespace

int insert_event_row(sqlite3* db, const EventSchema& schema, sqlite3_value** values, int64_t& rowid,
                     std::string& error) {
  const int run_col = EventSchema::kRunIdColumn;
  if (sqlite3_value_numeric_type(values[run_col]) != SQLITE_INTEGER) {
    error = std::string(schema.table) + ".run_id must be an integer";
    return SQLITE_CONSTRAINT;
  }
  int64_t run_id = sqlite3_value_int64(values[run_col]);
  std::string kind;
  if (schema.kind_column >= 0) {
    const auto* text =
        reinterpret_cast<const char*>(sqlite3_value_text(values[schema.kind_column]));
    if (text == nullptr) {
      error = std::string(schema.table) + ".kind must not be NULL";
      return SQLITE_CONSTRAINT;
    }
    kind = text;
  }
  EventBlockBuilder b(schema);
  for (int col = 0; col < static_cast<int>(schema.columns.size()); ++col) {
    if (schema.is_key(col)) continue;
    const EventColumn& c = schema.columns[static_cast<size_t>(col)];
    if (c.defaults_to_zero && sqlite3_value_type(values[col]) == SQLITE_NULL) {
      b.set_int(col, 0);
      continue;
    }
    if (!put(b, col, c.type, values[col])) {
      error = std::string(schema.table) + "." + c.name + " expects " + type_name(c.type);
      return SQLITE_MISMATCH;
    }
  }
  sqlite3_value* start = values[schema.start_column];
  sqlite3_value* dur = values[schema.dur_column];
  bool spanned = sqlite3_value_numeric_type(start) == SQLITE_INTEGER;
  int64_t lo = spanned ? sqlite3_value_int64(start) : 0;
  uint64_t length = sqlite3_value_numeric_type(dur) == SQLITE_INTEGER
                        ? static_cast<uint64_t>(sqlite3_value_int64(dur))
                        : 0;
  auto hi = static_cast<int64_t>(static_cast<uint64_t>(lo) + length);  // wraps, never UB
  b.end_row();
  std::string data = b.finish();
  // After the blocks already stored for this run and kind, so rows keep their insertion order.
  StmtPtr st = prepare(db,
                       "INSERT INTO event_blocks SELECT ?1, ?2, ?3, "
                       "coalesce((SELECT max(seq) FROM event_blocks WHERE side = ?2 AND "
                       "run_id = ?1 AND kind = ?3), 0) + 1, 1, ?4, ?5, ?6");
  if (!st) {
    error = sqlite3_errmsg(db);
    return SQLITE_ERROR;
  }
  sqlite3_bind_int64(st.get(), 1, run_id);
  sqlite3_bind_text(st.get(), 2, schema.table, -1, SQLITE_STATIC);
  sqlite3_bind_text(st.get(), 3, kind.data(), static_cast<int>(kind.size()), SQLITE_STATIC);
  if (spanned) {
    sqlite3_bind_int64(st.get(), 4, lo);
    sqlite3_bind_int64(st.get(), 5, hi);
  }
  sqlite3_bind_blob(st.get(), 6, data.data(), static_cast<int>(data.size()), SQLITE_STATIC);
  int rc = sqlite3_step(st.get());
  if (rc != SQLITE_DONE) {
    error = sqlite3_errmsg(db);
    return rc;
  }
  rowid = sqlite3_last_insert_rowid(db) << kRowBits;
  return SQLITE_OK;
}

}  // namespace perfsage::store
