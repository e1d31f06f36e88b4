#include "store/user_sql.h"

#include <sqlite3.h>

#include <optional>
#include <string>
#include <unordered_set>

namespace perfsage::store {
namespace {

// Pragmas that only report, whatever their argument (a table or index name).
bool reporting_pragma(std::string_view name) {
  static const std::unordered_set<std::string_view> names = {
      "table_info",    "table_xinfo",     "table_list",       "index_list",
      "index_info",    "index_xinfo",     "foreign_key_list", "collation_list",
      "function_list", "module_list",     "pragma_list",      "compile_options",
      "database_list", "integrity_check", "quick_check",      "foreign_key_check"};
  return names.count(name) > 0;
}

// Pragmas that set something when given a value and report it when not.
bool setting_pragma(std::string_view name) {
  static const std::unordered_set<std::string_view> names = {
      "user_version",   "schema_version", "application_id", "page_size",   "page_count",
      "freelist_count", "journal_mode",   "encoding",       "data_version"};
  return names.count(name) > 0;
}

// What the authorizer refused while the statement was prepared on this thread, for the error:
// SQLite itself says only "not authorized".
thread_local std::string refused_action;

std::string describe(int action, const char* a, const char* b) {
  std::string what = a ? a : "";
  switch (action) {
    case SQLITE_INSERT:
      return "insert into " + what;
    case SQLITE_UPDATE:
      return "update " + what;
    case SQLITE_DELETE:
      return "delete from " + what;
    case SQLITE_PRAGMA:
      return "set pragma " + what + (b ? std::string(" = ") + b : std::string());
    case SQLITE_ATTACH:
      return "attach a database";
    case SQLITE_DETACH:
      return "detach a database";
    case SQLITE_TRANSACTION:
      return "start or end a transaction";
    case SQLITE_ANALYZE:
      return "analyze";
    case SQLITE_REINDEX:
      return "reindex";
    case SQLITE_SAVEPOINT:
      return "use a savepoint";
    default:
      return what.empty() ? "change the store" : "change " + what;
  }
}

int deny(int action, const char* a, const char* b) {
  if (refused_action.empty()) refused_action = describe(action, a, b);
  return SQLITE_DENY;
}

int authorize(void*, int action, const char* a, const char* b, const char*, const char*) {
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_INSERT:
    case SQLITE_UPDATE:
      // Declaring an eponymous virtual table (pragma_table_info, the event tables) while
      // preparing is reported as a write of the schema table; a user's own write of it needs
      // writable_schema (refused below) and is caught by sqlite3_stmt_readonly anyway.
      return a && (std::string_view(a) == "sqlite_master" ||
                   std::string_view(a) == "sqlite_temp_master")
                 ? SQLITE_OK
                 : deny(action, a, b);
    case SQLITE_PRAGMA: {
      std::string_view name = a ? a : "";
      if (reporting_pragma(name) || (setting_pragma(name) && b == nullptr)) return SQLITE_OK;
      return deny(action, a, b);
    }
    default:
      return deny(action, a, b);
  }
}

std::string refusal(std::string_view sql, const std::string& why) {
  return "read-only queries only: refused '" + std::string(sql) + "'" +
         (why.empty() ? std::string() : " (it would " + why + ")");
}

}  // namespace

void allow_only_reads(Database& db) {
  sqlite3_limit(db.handle(), SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_set_authorizer(db.handle(), authorize, nullptr);
}

Statement prepare_one_statement(Database& db, std::string_view sql) {
  std::string text(sql);
  refused_action.clear();
  const char* tail = nullptr;
  sqlite3_stmt* rest = nullptr;
  {
    // Only to find where the first statement ends.
    sqlite3_stmt* first = nullptr;
    int rc =
        sqlite3_prepare_v2(db.handle(), text.c_str(), static_cast<int>(text.size()), &first, &tail);
    sqlite3_finalize(first);
    if (rc == SQLITE_OK && tail && *tail) {
      rc = sqlite3_prepare_v2(db.handle(), tail, -1, &rest, nullptr);
      bool more = rc != SQLITE_OK || rest != nullptr;
      sqlite3_finalize(rest);
      if (more) {
        throw StoreError("one SQL statement at a time: more follows '" +
                         std::string(text.data(), static_cast<size_t>(tail - text.data())) + "'");
      }
    }
  }
  refused_action.clear();
  std::optional<Statement> st;
  try {
    st.emplace(db.prepare(sql));
  } catch (const StoreError&) {
    if (refused_action.empty()) throw;  // not refused: a syntax error, an unknown table, ...
    throw StoreError(refusal(sql, refused_action));
  }
  if (!sqlite3_stmt_readonly(st->handle())) throw StoreError(refusal(sql, ""));
  return std::move(*st);
}

}  // namespace perfsage::store
