// RAII wrappers over SQLite handles: a database connection, prepared statements, transactions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace perfsage::store {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;

  // Parameters are 1-based, as in SQLite.
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind(int index, const std::string& value) {
    return bind(index, std::string_view(value));
  }
  Statement& bind_null(int index);
  // Binds text without copying it: the caller keeps `value` alive until the statement has run.
  Statement& bind_static(int index, std::string_view value);
  // Binds bytes as a BLOB without copying them, under the same rule as bind_static.
  Statement& bind_blob_static(int index, std::string_view bytes);
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  // Returns true while a row is available.
  bool step();
  // Runs a statement that returns no rows, then resets it for reuse.
  void run();
  void reset();

  int column_count() const;
  bool is_null(int col) const;
  int64_t int64(int col) const;
  double real(int col) const;
  std::string text(int col) const;
  // The column's text without a copy; valid until the next step() or reset().
  std::string_view text_view(int col) const;
  // Valid until the next step() or reset().
  std::string_view blob_view(int col) const;
  std::string column_name(int col) const;
  sqlite3_stmt* handle() { return stmt_; }
  int column_type(int col) const;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_NULL ...

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

class Database {
 public:
  // Opens (creating if needed) and migrates the schema. ":memory:" is accepted.
  explicit Database(const std::string& path);
  // A second, read-only connection to an existing store file, for queries on another thread
  // (WAL lets it read while the first connection is idle or reading).
  static std::unique_ptr<Database> open_reader(const std::string& path);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(std::string_view sql);
  Statement prepare(std::string_view sql) { return Statement(db_, sql); }
  int64_t last_insert_rowid() const;
  int schema_version() const;
  const std::string& path() const { return path_; }
  // True when the store file is write-protected: SQLite then opens it for reading only. Its
  // runs can be read and analysed again; results go to TEMP tables of this connection.
  bool read_only() const { return read_only_; }
  // Copies the write-ahead log into the database file (passive: waits for nobody). Returns
  // why it could not ("database or disk is full"), or empty; a log merely in use is no error.
  std::string checkpoint();
  sqlite3* handle() { return db_; }

 private:
  struct ReaderTag {};
  Database(const std::string& path, ReaderTag);
  template <typename Setup>
  void set_up_or_close(Setup&& setup);
  void apply_cache_pragmas();
  void register_tables();
  sqlite3* db_ = nullptr;
  std::string path_;
  bool read_only_ = false;
};

// How long a connection waits for another one's write lock before giving up: an ingest holds
// it for the whole run (tens of seconds for a multi-GB trace), and a second writer should wait
// its turn rather than fail with "database is locked".
inline constexpr int kBusyTimeoutMs = 10 * 60 * 1000;

// Rolls back unless commit() was called.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  void commit();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace perfsage::store
