// RAII wrappers over SQLite handles: a database connection, prepared statements, transactions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace perfsage::store {

class StoreError : public std::runtime_error {
 public:
  explicit StoreError(const std::string& what, int sqlite_code = 0)
      : std::runtime_error(what), code_(sqlite_code) {}
  // SQLite's extended result code when SQLite said no (0 otherwise).
  int sqlite_code() const { return code_; }
  // The disk (or the file system's quota) has no room left for the write.
  bool no_space() const;

 private:
  int code_ = 0;
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

// Whether a store outlives the process: a disposable one (the CLI's temporary store, deleted
// when the command ends) is never synced to disk, and its log is not copied into the file.
enum class StoreLifetime { kept, disposable };

class Database {
 public:
  // Opens (creating if needed) and migrates the schema. ":memory:" is accepted.
  explicit Database(const std::string& path, StoreLifetime lifetime = StoreLifetime::kept);
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
  // The disk had no room even to read the store as usual (the log's index): it is open as a
  // write-protected one, read_only() true.
  bool disk_full() const { return disk_full_; }
  bool disposable() const { return disposable_; }
  // Copies the write-ahead log into the database file (passive: waits for nobody). Returns
  // why it could not ("database or disk is full"), or empty; a log merely in use is no error.
  std::string checkpoint();
  // SQLite's quick_check of the whole file: empty when sound, else its first problems (one per
  // line, at most 5). Reads every page: as slow as reading the file.
  std::string integrity_problems();
  sqlite3* handle() { return db_; }

 private:
  struct ReaderTag {};
  Database(const std::string& path, ReaderTag);
  template <typename Setup>
  void set_up_or_close(Setup&& setup);
  void set_up();
  void apply_cache_pragmas();
  void register_tables();
  sqlite3* db_ = nullptr;
  std::string path_;
  bool read_only_ = false, disk_full_ = false, disposable_ = false;
};

// Copies the write-ahead log of the store at `path` into the database file and truncates it to
// nothing, from a connection of its own that waits at most `wait_ms` for readers and writers: a
// log left behind keeps its largest size on disk until the next checkpoint. Returns why it
// could not (empty: done, or the log was in use and stays for a later checkpoint).
std::string truncate_log(const std::string& path, int wait_ms = 200);

// The write-ahead log is copied into the file (automatic checkpoint) once it holds this much,
// and cut back to it after a checkpoint: SQLite's default of 1000 pages is 64 MiB with the
// store's 64 KiB pages, more than ten times the tiny example's store.
inline constexpr int64_t kWalCheckpointBytes = 4 << 20;

// How long a connection waits for another one's write lock before giving up: an ingest holds
// it for the whole run (tens of seconds for a multi-GB trace), and a second writer should wait
// its turn rather than fail with "database is locked".
inline constexpr int kBusyTimeoutMs = 10 * 60 * 1000;

// The columns of `table` in database `schema` ("main", or an attached one's name), in order;
// empty when there is no such table.
std::vector<std::string> table_columns(Database& db, const std::string& table,
                                       const std::string& schema = "main");

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
