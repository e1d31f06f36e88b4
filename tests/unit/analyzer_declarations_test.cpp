// Analyzer declarations: run order from what each reads and writes, and derived tables that
// exist with their declared shape in every store.
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "analyzers/core/analyzer.h"
#include "analyzers/core/fact_types.h"
#include "store/database.h"
#include "store/derived_tables.h"
#include "store/fact_type.h"
#include "test_support.h"

using namespace perfsage;

namespace {

analyzers::Analyzer declared(std::string name, std::vector<std::string> reads,
                             std::vector<std::string> writes) {
  analyzers::Analyzer a;
  a.name = std::move(name);
  a.reads = std::move(reads);
  for (auto& t : writes) a.writes.push_back({t, "", {}, {}});
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

TEST_CASE("derived tables: a store made by the migrations takes the declared shapes once") {
  store::Database db(":memory:");
  // The migrations made the older derived tables; their declarations now live with the
  // analyzers and are the truth: a table whose declaration changed since (a column added) is
  // re-created once, the others are left with their rows. The tables that still match what the
  // migrations made are most of them: a declaration that drifted by accident would make every
  // store re-analyse its runs once.
  std::set<std::string> migrated;
  for (const auto& t : analyzers::derived_tables())
    if (table_exists(db, t.name)) migrated.insert(t.name);
  CHECK(migrated.size() >= 19);
  std::set<std::string> recreated;
  for (const auto& changed : store::ensure_derived_tables(db, analyzers::derived_tables()))
    if (migrated.count(changed)) recreated.insert(changed);
  // Reshaped on purpose since the migrations made them: the rank column of the tables a
  // cluster run assembles from its ranks (kernel_groups, host_op_self, activation_patterns,
  // op_type_stats, op_block_dims, fusion_candidates, transdata_chains).
  INFO("re-created: " << Catch::Detail::stringify(recreated));
  CHECK(recreated.size() <= 7);
  CHECK(store::ensure_derived_tables(db, analyzers::derived_tables()).empty());
}

TEST_CASE("derived tables: missing or reshaped ones are (re)created, current ones untouched") {
  test::TempDir dir;
  std::string path = (dir.path() / "s.db").string();
  std::vector<store::DerivedTable> tables = {
      {"t_new", "a test table", {store::real("x", "us", "a time").or_null()}, {"run_id"}}};
  {
    store::Database db(path);
    CHECK(store::ensure_derived_tables(db, tables) == std::vector<std::string>{"t_new"});
    db.exec("INSERT INTO t_new VALUES(1, 2.5)");
    CHECK(store::ensure_derived_tables(db, tables).empty());  // same shape: rows kept
    {
      auto rows = db.prepare("SELECT x FROM t_new");
      REQUIRE(rows.step());
      CHECK(rows.real(0) == 2.5);
    }

    // A column added, an index changed: the table is re-created in the new shape.
    tables[0].columns.push_back(store::text("y", "a name").or_null());
    tables[0].index = {"run_id", "y"};
    CHECK(store::ensure_derived_tables(db, tables) == std::vector<std::string>{"t_new"});
    {
      auto cols = db.prepare("SELECT count(*) FROM pragma_table_info('t_new')");
      REQUIRE(cols.step());
      CHECK(cols.int64(0) == 3);
    }
    tables[0].index.clear();
    CHECK(store::ensure_derived_tables(db, tables) == std::vector<std::string>{"t_new"});
    CHECK_FALSE(table_exists(db, "t_new_run"));
    // NOT NULL is part of the shape.
    tables[0].columns[0].nullable = false;
    CHECK(store::ensure_derived_tables(db, tables) == std::vector<std::string>{"t_new"});
  }
  // A store whose tables match opens read-only: nothing is written.
  std::filesystem::permissions(path, std::filesystem::perms::owner_read);
  auto reader = store::Database::open_reader(path);
  CHECK(store::ensure_derived_tables(*reader, tables).empty());
}

TEST_CASE("derived tables: a broken declaration is refused, naming the table") {
  store::Database db(":memory:");
  using store::DerivedTable;
  CHECK_THROWS_WITH(store::ensure_derived_tables(db, {DerivedTable{"bad name", "", {}, {}}}),
                    Catch::Contains("derived table bad name: the name is not a plain identifier"));
  CHECK_THROWS_WITH(
      store::ensure_derived_tables(
          db, {DerivedTable{"t", "", {store::real("x); DROP TABLE runs; --", "", "")}, {}}}),
      Catch::Contains("column 'x); DROP TABLE runs; --' is not a plain identifier"));
  CHECK_THROWS_WITH(
      store::ensure_derived_tables(
          db, {DerivedTable{"t", "", {store::real("x", "", ""), store::text("x", "")}, {}}}),
      Catch::Contains("derived table t: column 'x' is declared twice"));
  CHECK_THROWS_WITH(
      store::ensure_derived_tables(db, {DerivedTable{"t", "", {store::real("x", "", "")}, {"y"}}}),
      Catch::Contains("derived table t: its index names no column 'y'"));
  CHECK_FALSE(table_exists(db, "t"));
}

TEST_CASE("derived tables: the DDL, the insert and the reference come from one declaration") {
  store::DerivedTable t{
      "t_decl",
      "Times per name.",
      {store::integer("rank", "", "rank of the trace").with_default("0"),
       store::text("name", "kernel name"), store::text("kind", "sync or copy").as_symbol(),
       store::real("total_us", "us", "summed time | all calls"),
       store::integer("bytes", "bytes", "moved").or_null()},
      {"run_id", "name"}};
  CHECK(t.ddl() ==
        "CREATE TABLE t_decl(\n  run_id INTEGER NOT NULL,\n  rank INTEGER NOT NULL DEFAULT 0,\n"
        "  name TEXT NOT NULL,\n  kind TEXT NOT NULL,\n  total_us REAL NOT NULL,\n"
        "  bytes INTEGER);\nCREATE INDEX t_decl_run ON t_decl(run_id, name);\n");
  store::Database db(":memory:");
  store::ensure_derived_tables(db, {t});
  store::RowInserter insert(db, t);
  insert.insert(int64_t{7}, 1, "k", "sync", 2.5, std::optional<int64_t>{});
  insert.insert(int64_t{7}, 0, "k2", "copy", 4.0, std::optional<int64_t>{64});
  // A writer that forgot a column fails before writing anything.
  CHECK_THROWS_WITH(insert.insert(int64_t{7}, 1, "k", "sync", 2.5),
                    Catch::Contains("derived table t_decl declares 5 columns after run_id, 4 "
                                    "values given"));
  auto rows = db.prepare("SELECT count(*), sum(bytes IS NULL), sum(total_us) FROM t_decl");
  REQUIRE(rows.step());
  CHECK(rows.int64(0) == 2);
  CHECK(rows.int64(1) == 1);
  CHECK(rows.real(2) == 6.5);

  // A projection fact: slots typed from the columns, bounded, checked against its query.
  auto fact = store::projection_fact(
      t,
      {"decl", "doc", "one per name", {"name", "kind", "total_us", "bytes"}, "total_us DESC", 10});
  REQUIRE(fact.slots.size() == 4);
  CHECK(fact.slots[0].type == store::SlotType::String);
  CHECK(fact.slots[1].type == store::SlotType::Symbol);
  CHECK(fact.slots[2].type == store::SlotType::Float);
  CHECK(fact.slots[2].unit == "us");
  CHECK(fact.slots[3].type == store::SlotType::Integer);
  CHECK(fact.query ==
        "SELECT name, kind, total_us, bytes FROM t_decl WHERE run_id = ?1 ORDER BY total_us DESC "
        "LIMIT 10");
  CHECK(store::slot_mismatch(db, fact) == "");
  CHECK_THROWS_WITH(store::projection_fact(t, {"decl", "", "", {"nope"}, "", 10}),
                    Catch::Contains("table t_decl declares no column nope"));

  // A hand-written query whose columns and slots drift apart is named.
  fact.query = "SELECT name, kind AS kinds, total_us, bytes, rank FROM t_decl WHERE run_id = ?1";
  CHECK(store::slot_mismatch(db, fact) ==
        "fact type decl: slot kind has no column; column kinds fills no slot; column rank fills "
        "no slot");
  fact.query = "SELECT nope FROM t_decl";
  CHECK_THAT(store::slot_mismatch(db, fact),
             Catch::Contains("fact type decl: its query does not prepare") &&
                 Catch::Contains("no such column: nope"));

  auto md = store::tables_markdown({t});
  CHECK_THAT(
      md, Catch::Contains("## `t_decl`\n\nTimes per name.") &&
              Catch::Contains("| `total_us` | REAL NOT NULL | us | summed time \\| all calls |") &&
              Catch::Contains("| `bytes` | INTEGER | bytes | moved |"));
}

TEST_CASE("every fact type's slots are exactly its query's columns") {
  store::Database db(":memory:");
  store::ensure_derived_tables(db, analyzers::derived_tables());
  for (const auto& t : analyzers::fact_types()) {
    INFO("fact type " << t.name);
    CHECK(store::slot_mismatch(db, t) == "");
  }
}
