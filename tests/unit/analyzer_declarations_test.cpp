// Analyzer declarations: run order from what each reads and writes, and derived tables that
// exist with their declared shape in every store.
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "analyzers/core/analyzer.h"
#include "store/database.h"
#include "store/derived_tables.h"
#include "test_support.h"

using namespace perfsage;

namespace {

analyzers::Analyzer declared(std::string name, std::vector<std::string> reads,
                             std::vector<std::string> writes) {
  analyzers::Analyzer a;
  a.name = std::move(name);
  a.reads = std::move(reads);
  for (auto& t : writes) a.writes.push_back({t, "CREATE TABLE " + t + "(run_id INTEGER)"});
  return a;
}

std::vector<std::string> names(const std::vector<analyzers::Analyzer>& list) {
  std::vector<std::string> out;
  for (const auto& a : list) out.push_back(a.name);
  return out;
}

// A table, view or the store's virtual tables over event blocks (op_tasks, host_events, ...).
bool table_exists(store::Database& db, const std::string& name) {
  try {
    db.prepare("SELECT * FROM \"" + name + "\" LIMIT 0");
    return true;
  } catch (const store::StoreError&) {
    return false;
  }
}

}  // namespace

TEST_CASE("an analyzer runs after the analyzers writing the tables it reads") {
  auto order = analyzers::order_analyzers({declared("late", {"a_table"}, {"late_table"}),
                                           declared("free", {"op_tasks"}, {"free_table"}),
                                           declared("early", {"op_tasks"}, {"a_table"})});
  CHECK(names(order) == std::vector<std::string>{"free", "early", "late"});

  CHECK_THROWS_WITH(analyzers::order_analyzers(
                        {declared("x", {"y_t"}, {"x_t"}), declared("y", {"x_t"}, {"y_t"})}),
                    Catch::Contains("cycle: x, y"));
  CHECK_THROWS_WITH(
      analyzers::order_analyzers({declared("x", {}, {"t"}), declared("y", {}, {"t"})}),
      Catch::Contains("derived table t is declared by two analyzers"));
}

TEST_CASE("the shipped analyzers: each reads tables that exist or that an earlier one writes") {
  const auto& all = analyzers::analyzers();
  REQUIRE(all.size() >= 6);
  store::Database db(":memory:");
  store::ensure_derived_tables(db, analyzers::derived_tables());
  std::set<std::string> written;
  std::set<std::string> owned;
  for (const auto& a : all) {
    for (const auto& t : a.writes) owned.insert(t.name);
  }
  for (const auto& a : all) {
    INFO("analyzer " << a.name);
    for (const auto& table : a.reads) {
      INFO("reads " << table);
      CHECK(table_exists(db, table));
      if (owned.count(table)) CHECK(written.count(table));  // its writer ran before
    }
    for (const auto& t : a.writes) written.insert(t.name);
    for (const auto& t : a.adds_to) CHECK(table_exists(db, t));
  }
  // The GPU step windows feed the iteration analyzer; the graph matches feed the patterns.
  auto position = [&](const std::string& name) {
    for (size_t i = 0; i < all.size(); ++i)
      if (all[i].name == name) return i;
    FAIL("no analyzer " << name);
    return all.size();
  };
  CHECK(position("gpu") < position("iteration"));
  CHECK(position("graph_match") < position("patterns"));
  CHECK(position("op_stats") < position("graph_match"));
}

TEST_CASE("derived tables: those the migrations made already have the declared shapes") {
  store::Database db(":memory:");
  // The migrations made the older derived tables; their declarations now live with the
  // analyzers and must describe exactly those tables, or every store would be rebuilt. Newer
  // derived tables need no migration: they are only created.
  std::set<std::string> migrated;
  for (const auto& t : analyzers::derived_tables())
    if (table_exists(db, t.name)) migrated.insert(t.name);
  CHECK(migrated.size() >= 19);
  for (const auto& changed : store::ensure_derived_tables(db, analyzers::derived_tables())) {
    INFO("re-created " << changed);
    CHECK_FALSE(migrated.count(changed));
  }
  CHECK(store::ensure_derived_tables(db, analyzers::derived_tables()).empty());
}

TEST_CASE("derived tables: missing or reshaped ones are (re)created, current ones untouched") {
  test::TempDir dir;
  std::string path = (dir.path() / "s.db").string();
  {
    store::Database db(path);
    std::vector<store::DerivedTable> tables = {
        {"t_new",
         "CREATE TABLE t_new(run_id INTEGER NOT NULL, x REAL);\n"
         "CREATE INDEX t_new_run ON t_new(run_id);"}};
    CHECK(store::ensure_derived_tables(db, tables) == std::vector<std::string>{"t_new"});
    db.exec("INSERT INTO t_new VALUES(1, 2.5)");
    CHECK(store::ensure_derived_tables(db, tables).empty());  // same shape: rows kept
    {
      auto rows = db.prepare("SELECT x FROM t_new");
      REQUIRE(rows.step());
      CHECK(rows.real(0) == 2.5);
    }

    // A column added, an index changed: the table is re-created in the new shape.
    tables[0].ddl =
        "CREATE TABLE t_new(run_id INTEGER NOT NULL, x REAL, y TEXT);\n"
        "CREATE INDEX t_new_run ON t_new(run_id, y);";
    CHECK(store::ensure_derived_tables(db, tables) == std::vector<std::string>{"t_new"});
    {
      auto cols = db.prepare("SELECT count(*) FROM pragma_table_info('t_new')");
      REQUIRE(cols.step());
      CHECK(cols.int64(0) == 3);
    }
    tables[0].ddl = "CREATE TABLE t_new(run_id INTEGER NOT NULL, x REAL, y TEXT);";
    CHECK(store::ensure_derived_tables(db, tables) == std::vector<std::string>{"t_new"});
    CHECK_FALSE(table_exists(db, "t_new_run"));
  }
  // A store whose tables match opens read-only: nothing is written.
  std::filesystem::permissions(path, std::filesystem::perms::owner_read);
  auto reader = store::Database::open_reader(path);
  CHECK(store::ensure_derived_tables(
            *reader, {{"t_new", "CREATE TABLE t_new(run_id INTEGER NOT NULL, x REAL, y TEXT);"}})
            .empty());
}

TEST_CASE("derived tables: a broken declaration is refused, naming the table") {
  store::Database db(":memory:");
  CHECK_THROWS_WITH(store::ensure_derived_tables(db, {{"bad", "CREATE TABLE bad(run_id"}}),
                    Catch::Contains("derived table bad: its declaration fails"));
  CHECK_THROWS_WITH(
      store::ensure_derived_tables(db, {{"named", "CREATE TABLE other(run_id INTEGER)"}}),
      Catch::Contains("derived table named: its declaration creates no such table"));
  CHECK_FALSE(table_exists(db, "other"));
}
