#include "engine/kb/fixture.h"

#include <sqlite3.h>

#include <chrono>
#include <fstream>
#include <sstream>

namespace perfsage::engine {
namespace fs = std::filesystem;
namespace {

constexpr std::chrono::seconds kMaxFixtureTime{5};

// Inserts (and the reads an INSERT ... SELECT or a virtual table needs) into existing tables;
// everything that reaches outside the store, changes its schema or loops is refused.
int fixture_authorizer(void*, int action, const char* a, const char*, const char*, const char*) {
  switch (action) {
    case SQLITE_INSERT:
      return a && sqlite3_strnicmp(a, "sqlite_", 7) == 0 ? SQLITE_DENY : SQLITE_OK;
    case SQLITE_READ:
    case SQLITE_SELECT:
    case SQLITE_TRANSACTION:
    case SQLITE_SAVEPOINT:
      return SQLITE_OK;
    case SQLITE_FUNCTION:
      return a && sqlite3_stricmp(a, "load_extension") == 0 ? SQLITE_DENY : SQLITE_OK;
    default:  // ATTACH, DETACH, PRAGMA, CREATE/DROP/ALTER, UPDATE, DELETE, RECURSIVE, ...
      return SQLITE_DENY;
  }
}

int fixture_deadline(void* deadline) {
  return std::chrono::steady_clock::now() >
         *static_cast<std::chrono::steady_clock::time_point*>(deadline);
}

bool inside(const fs::path& path, const fs::path& root) {
  auto rel = path.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

// A fixture folder is read as a run's folder is: collectors walk it and follow links to files.
// Every link in it (at any depth) must therefore resolve inside the pack folder too.
void check_folder_links(const fs::path& dir, const fs::path& root, const std::string& name) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_symlink(ec)) continue;
    std::error_code resolve_ec;
    fs::path target = fs::weakly_canonical(it->path(), resolve_ec);
    if (resolve_ec || !inside(target, root))
      throw FixtureError("fixture '" + name + "' holds " +
                         it->path().lexically_relative(dir).string() +
                         ", a link to outside the pack folder; fixtures must lie in it");
  }
  if (ec) throw FixtureError("fixture '" + name + "' cannot be walked: " + ec.message());
}

fs::path confined_path(const Pack& pack, const fs::path& test_file, const std::string& name) {
  std::error_code ec;
  fs::path root = fs::canonical(pack.dir.empty() ? test_file.parent_path() : pack.dir, ec);
  if (ec) throw FixtureError("cannot resolve the pack folder: " + ec.message());
  fs::path path = fs::weakly_canonical(test_file.parent_path() / name, ec);
  if (ec || !inside(path, root))
    throw FixtureError("fixture '" + name +
                       "' is outside the pack folder; fixtures must lie in it");
  auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw FixtureError("fixture '" + name + "' does not exist");
  if (fs::is_directory(st)) {
    check_folder_links(path, root, name);
  } else if (!fs::is_regular_file(st)) {
    throw FixtureError("fixture '" + name + "' is neither a file nor a folder");
  }
  return path;
}

void run_fixture_sql(store::Database& db, const fs::path& path, const std::string& name) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (ec || size > kMaxFixtureSqlBytes)
    throw FixtureError("SQL fixture '" + name + "' is larger than " +
                       std::to_string(kMaxFixtureSqlBytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  std::stringstream sql;
  sql << in.rdbuf();
  auto deadline = std::chrono::steady_clock::now() + kMaxFixtureTime;
  // The event tables are virtual: connecting them declares their schema, which the authorizer
  // below would refuse; connect them first.
  db.prepare("SELECT 1 FROM op_tasks, host_events, device_events WHERE 0").step();
  sqlite3* h = db.handle();
  sqlite3_set_authorizer(h, fixture_authorizer, nullptr);
  sqlite3_progress_handler(h, 10000, fixture_deadline, &deadline);
  char* err = nullptr;
  int rc = sqlite3_exec(h, sql.str().c_str(), nullptr, nullptr, &err);
  sqlite3_progress_handler(h, 0, nullptr, nullptr);
  sqlite3_set_authorizer(h, nullptr, nullptr);
  if (rc != SQLITE_OK) {
    std::string why = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    if (rc == SQLITE_INTERRUPT) why = "took longer than 5 s";
    throw FixtureError("SQL fixture '" + name + "' refused: " + why +
                       " (fixtures may only insert rows into the store's tables)");
  }
}

}  // namespace

std::unique_ptr<store::Database> load_fixture(const Pack& pack, const fs::path& test_file,
                                              const std::string& name,
                                              const PackTestOptions& options) {
  fs::path path = confined_path(pack, test_file, name);
  auto db = std::make_unique<store::Database>(":memory:");
  if (path.extension() == ".sql") {
    run_fixture_sql(*db, path, name);
  } else if (options.ingest) {
    try {
      options.ingest(*db, path);
    } catch (const std::exception& e) {
      throw FixtureError("fixture '" + name + "' cannot be read: " + e.what());
    }
  } else {
    throw FixtureError("fixture '" + name +
                       "' is a profiling dump; only `perfsage kb test` reads those");
  }
  if (options.analyze) options.analyze(*db, 1);
  return db;
}

}  // namespace perfsage::engine
