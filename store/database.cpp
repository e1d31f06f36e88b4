#include "store/database.h"

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>

#include "store/event_table.h"
#include "store/schema.h"

namespace perfsage::store {

namespace {
// "store FILE: " when the connection has a file: "attempt to write a readonly database" or
// "database or disk is full" mean nothing without it.
std::string store_name(sqlite3* db) {
  const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;
  return file && *file ? "store " + std::string(file) + ": " : "store: ";
}

[[noreturn]] void fail(sqlite3* db, std::string_view what) {
  throw StoreError(
      store_name(db) + std::string(what) + ": " + (db ? sqlite3_errmsg(db) : "out of memory"),
      db ? sqlite3_extended_errcode(db) : SQLITE_NOMEM);
}
}  // namespace

bool StoreError::no_space() const {
  return (code_ & 0xff) == SQLITE_FULL || code_ == SQLITE_IOERR_WRITE ||
         code_ == SQLITE_IOERR_FSYNC || code_ == SQLITE_IOERR_SHMSIZE ||
         std::string_view(what()).find("database or disk is full") != std::string_view::npos;
}

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db), stmt_(nullptr) {
  if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) !=
      SQLITE_OK) {
    fail(db, "prepare '" + std::string(sql.substr(0, 80)) + "'");
  }
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) {
  other.stmt_ = nullptr;
}

Statement& Statement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) fail(db_, "bind");
  return *this;
}
Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) fail(db_, "bind");
  return *this;
}
Statement& Statement::bind(int index, std::string_view value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK)
    fail(db_, "bind");
  return *this;
}
Statement& Statement::bind_static(int index, std::string_view value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                        SQLITE_STATIC) != SQLITE_OK)
    fail(db_, "bind");
  return *this;
}
Statement& Statement::bind_blob_static(int index, std::string_view bytes) {
  if (sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_STATIC) != SQLITE_OK)
    fail(db_, "bind");
  return *this;
}
Statement& Statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) fail(db_, "bind");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, "step");
}

void Statement::run() {
  int rc = sqlite3_step(stmt_);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
    sqlite3_reset(stmt_);
    fail(db_, "step");
  }
  sqlite3_reset(stmt_);
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int Statement::column_count() const {
  return sqlite3_column_count(stmt_);
}
bool Statement::is_null(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}
int64_t Statement::int64(int col) const {
  return sqlite3_column_int64(stmt_, col);
}
double Statement::real(int col) const {
  return sqlite3_column_double(stmt_, col);
}
std::string Statement::text(int col) const {
  auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  return p ? std::string(p, sqlite3_column_bytes(stmt_, col)) : std::string();
}
std::string_view Statement::text_view(int col) const {
  auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  return p ? std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
           : std::string_view();
}
std::string_view Statement::blob_view(int col) const {
  const void* p = sqlite3_column_blob(stmt_, col);
  return p ? std::string_view(static_cast<const char*>(p),
                              static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
           : std::string_view();
}
std::string Statement::column_name(int col) const {
  return sqlite3_column_name(stmt_, col);
}
int Statement::column_type(int col) const {
  return sqlite3_column_type(stmt_, col);
}

namespace {
// Opens a connection or throws naming the store; the handle is closed again on failure.
sqlite3* open_handle(const std::string& path, int flags, const char* purpose) {
  // Without memory statistics SQLite's allocator takes no global mutex, which two reader
  // threads otherwise contend on. Effective only before SQLite initialises; harmless after.
  static const int no_memstatus = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)no_memstatus;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw StoreError("cannot open store " + path + purpose + ": " + msg);
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  return db;
}

std::string uri_path(const std::string& path) {
  std::string out;
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x20) {
      static const char* hex = "0123456789ABCDEF";
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// A write-protected WAL store in a folder this process cannot write either: SQLite cannot
// create the -shm file it needs even to read. When no log is left to read (the last writer
// copied and removed it), the file alone is the whole store and is opened as immutable.
sqlite3* open_write_protected(sqlite3* db, const std::string& path, const char* purpose) {
  if (sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr) ==
      SQLITE_OK)
    return db;
  std::error_code ec;
  auto log = std::filesystem::file_size(path + "-wal", ec);
  if (!ec && log > 0) return db;  // the log holds data: reading without it would be wrong
  sqlite3_close(db);
  return open_handle("file:" + uri_path(path) + "?immutable=1",
                     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, purpose);
}
}  // namespace

template <typename Setup>
void Database::set_up_or_close(Setup&& setup) {
  try {
    setup();
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

Database::Database(const std::string& path, StoreLifetime lifetime)
    : path_(path), disposable_(lifetime == StoreLifetime::disposable) {
  db_ = open_handle(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, "");
  // Closing the last connection would copy the whole log into a file about to be deleted.
  if (disposable_) sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  // SQLite opens a write-protected file for reading only, without saying so.
  read_only_ = sqlite3_db_readonly(db_, "main") == 1;
  if (read_only_) db_ = open_write_protected(db_, path, " (write-protected)");
  try {
    set_up_or_close([&] { set_up(); });
  } catch (const StoreError& e) {
    if (read_only_ || path == ":memory:" || !e.no_space()) throw;
    // A full disk: SQLite cannot even make the log's index it needs to read a WAL store. Its
    // stored runs are read as from a write-protected store (results of this connection in TEMP
    // tables, no new run), which needs no room.
    read_only_ = disk_full_ = true;
    db_ = open_handle(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, " (disk full)");
    db_ = open_write_protected(db_, path, " (disk full)");
    set_up_or_close([&] { set_up(); });
  }
}

void Database::set_up() {
  if (!read_only_) {
    // Bulk ingest and whole-table scans dominate; large pages mean fewer page writes and
    // reads (takes effect only when the file is created).
    exec("PRAGMA page_size=65536");
    exec("PRAGMA foreign_keys=ON");
    if (path_ != ":memory:") {
      exec("PRAGMA journal_mode=WAL");
      // Checkpoint and cut the log back by bytes, not SQLite's 1000 pages (64 MiB here).
      auto page = prepare("PRAGMA page_size");
      int64_t page_bytes = page.step() && page.int64(0) > 0 ? page.int64(0) : 4096;
      exec("PRAGMA wal_autocheckpoint=" +
           std::to_string(std::max<int64_t>(16, kWalCheckpointBytes / page_bytes)));
      exec("PRAGMA journal_size_limit=" + std::to_string(kWalCheckpointBytes));
    }
  }
  exec(disposable_ ? "PRAGMA synchronous=OFF" : "PRAGMA synchronous=NORMAL");
  apply_cache_pragmas();
  register_tables();
  migrate(*this);
  // Results of analysing a stored run go to TEMP tables (whose foreign keys could not name
  // the main database's runs: foreign keys stay off, nothing is written to the file).
  if (read_only_) shadow_result_tables(*this);
}

// Shared by writer and reader connections.
void Database::apply_cache_pragmas() {
  // A larger page cache keeps bulk ingest of multi-million-row runs off the disk path.
  exec("PRAGMA cache_size=-65536");
  exec("PRAGMA temp_store=MEMORY");
  // Analyzers scan whole tables; reading pages through a memory map avoids one pread system
  // call per page (SQLite clamps the size to its compile-time maximum).
  exec("PRAGMA mmap_size=8589934592");
}

// Raw events are column blocks read through virtual tables, which every connection needs.
void Database::register_tables() {
  if (register_event_tables(db_) != SQLITE_OK) {
    throw StoreError("cannot register the event tables on " + path_ + ": " + sqlite3_errmsg(db_));
  }
}

Database::Database(const std::string& path, ReaderTag) : path_(path), read_only_(true) {
  db_ = open_handle(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, " for reading");
  db_ = open_write_protected(db_, path, " for reading");
  set_up_or_close([&] {
    apply_cache_pragmas();
    register_tables();
  });
}

std::unique_ptr<Database> Database::open_reader(const std::string& path) {
  return std::unique_ptr<Database>(new Database(path, ReaderTag{}));
}

Database::~Database() {
  sqlite3_close(db_);
}

void Database::exec(std::string_view sql) {
  char* err = nullptr;
  std::string s(sql);
  if (sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw StoreError(store_name(db_) + msg + " in '" + s.substr(0, 80) + "'",
                     sqlite3_extended_errcode(db_));
  }
}

std::string Database::checkpoint() {
  if (path_ == ":memory:" || read_only_ || disposable_) return {};
  int log = 0, copied = 0;
  int rc = sqlite3_wal_checkpoint_v2(db_, "main", SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
  // BUSY: a reader or writer holds part of the log; it is copied by a later checkpoint.
  if (rc == SQLITE_OK || rc == SQLITE_BUSY) return {};
  return "the write-ahead log " + path_ + "-wal could not be copied into " + path_ + " (" +
         sqlite3_errmsg(db_) +
         "); what was written is safe in the log, and the next perfsage command that opens the "
         "store with room to spare finishes the copy";
}

std::string Database::integrity_problems() {
  auto st = prepare("PRAGMA quick_check(5)");
  std::string out;
  while (st.step()) {
    std::string line = st.text(0);
    if (line == "ok") continue;
    out += (out.empty() ? "" : "\n") + line;
  }
  return out;
}

std::string truncate_log(const std::string& path, int wait_ms) {
  if (path.empty() || path == ":memory:") return {};
  sqlite3* db = nullptr;
  std::string why;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) ==
      SQLITE_OK) {
    sqlite3_busy_timeout(db, wait_ms);
    int rc = sqlite3_wal_checkpoint_v2(db, "main", SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
    // BUSY: a reader or writer still uses the log; a later checkpoint copies and cuts it.
    if (rc != SQLITE_OK && rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
      why = "the write-ahead log " + path + "-wal could not be copied into " + path + " (" +
            sqlite3_errmsg(db) + ")";
  } else {
    why = "cannot open " + path +
          " to copy its write-ahead log: " + (db ? sqlite3_errmsg(db) : "out of memory");
  }
  sqlite3_close(db);
  return why;
}

int64_t Database::last_insert_rowid() const {
  return sqlite3_last_insert_rowid(db_);
}

int Database::schema_version() const {
  Statement st(db_, "SELECT max(version) FROM schema_version");
  return st.step() ? static_cast<int>(st.int64(0)) : 0;
}

std::vector<std::string> table_columns(Database& db, const std::string& table,
                                       const std::string& schema) {
  std::vector<std::string> out;
  auto st = db.prepare("SELECT name FROM pragma_table_info(?1, ?2) ORDER BY cid");
  st.bind(1, table).bind(2, schema);
  while (st.step()) out.push_back(st.text(0));
  return out;
}

Transaction::Transaction(Database& db) : db_(db) {
  // IMMEDIATE takes the write lock up front (a deferred transaction that reads first and writes
  // later can fail with SQLITE_BUSY where waiting would have done); a read-only store writes only
  // its TEMP tables, which need no lock on the file.
  db_.exec(db_.read_only() ? "BEGIN" : "BEGIN IMMEDIATE");
}
Transaction::~Transaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) {
      // Rolling back after a failed statement can itself fail; nothing more to do.
    }
  }
}
void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace perfsage::store
