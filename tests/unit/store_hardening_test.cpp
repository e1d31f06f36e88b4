// Store states that must not mislead: run status and unique fingerprints (and the migration
// that brings old stores there), the lock concurrent ingests wait on, a full disk at the
// checkpoint, the schema version in the file header.
#include <sqlite3.h>

#include <atomic>
#include <thread>

#include "full_disk_vfs.h"
#include "store/database.h"
#include "store/derived_tables.h"
#include "store/run_lock.h"
#include "store/run_registry.h"
#include "store/run_writer.h"
#include "store/schema.h"
#include "test_support.h"

using namespace perfsage::store;
using perfsage::test::TempDir;

namespace {
RunHeader header(const std::string& fp) {
  return {"job", {"/x/trace.json"}, fp, "2026-01-01T00:00:00Z"};
}
int64_t integer(Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  REQUIRE(st.step());
  return st.int64(0);
}
std::string text(Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  REQUIRE(st.step());
  return st.text(0);
}
int64_t commit_run(Database& db, const std::string& fp) {
  RunWriter w(db, header(fp));
  w.set_identity("pytorch", "cuda", "");
  w.commit();
  return w.run_id();
}
}  // namespace

TEST_CASE("a committed run is 'ingested' until its analysis marks it 'analyzed'") {
  Database db(":memory:");
  int64_t id = commit_run(db, "fp");
  auto run = load_run(db, id);
  CHECK(run->status == kRunIngested);
  CHECK(run->framework == "pytorch");  // kept for an analysis redone after a crash
  CHECK(run->device == "cuda");
  CHECK(run->chip.empty());
  set_run_status(db, id, kRunAnalyzed);
  CHECK(load_run(db, id)->status == kRunAnalyzed);
}

TEST_CASE("a fingerprint names one run") {
  Database db(":memory:");
  commit_run(db, "fp");
  CHECK_THROWS_WITH(commit_run(db, "fp"), Catch::Contains("UNIQUE constraint failed"));
  CHECK(integer(db, "SELECT count(*) FROM runs") == 1);
}

TEST_CASE("the run-status migration: old analysed runs complete, duplicates keep their data") {
  TempDir dir;
  auto path = (dir.path() / "s.db").string();
  const int version = 22;  // the run-status migration
  {
    Database db(path);
    // The store as an older perfsage left it: no unique fingerprint, runs 'ingested' whether
    // analysed (a summary) or not, and two concurrent ingests of the same inputs.
    db.exec("DROP INDEX runs_fingerprint; CREATE INDEX runs_fingerprint ON runs(fingerprint)");
    db.exec(
        "INSERT INTO runs(id, inputs, fingerprint, created, status, ranks) VALUES"
        "(1, '[]', 'a', 'x', 'ingested', 1), (2, '[]', 'a', 'x', 'ingested', 1),"
        "(3, '[]', 'b', 'x', 'ingested', NULL), (4, '[]', 'c', 'x', 'ingested', 1),"
        "(5, '[]', 'c', 'x', 'ingested', NULL)");
    // ... and without what later versions added (23: two fusion_candidates columns; 24: the
    // hardware_specs precision columns; 25: three GPU tables).
    db.exec(
        "ALTER TABLE fusion_candidates DROP COLUMN detail;"
        "ALTER TABLE fusion_candidates DROP COLUMN rewrite");
    for (const char* column :
         {"vendor", "arch", "isa", "matrix_fp16", "matrix_bf16", "matrix_tf32", "matrix_fp8"})
      db.exec(std::string("ALTER TABLE hardware_specs DROP COLUMN ") + column);
    // 25: the GPU host-blocking, queue and collective tables.
    db.exec(
        "DROP TABLE host_blocking; DROP TABLE gpu_queues; DROP TABLE gpu_collectives; "
        "DROP TABLE gpu_range_counters; DROP TABLE gpu_collective_ranks");
    db.exec("DELETE FROM schema_version WHERE version >= " + std::to_string(version));
  }
  Database db(path);
  CHECK(db.schema_version() == current_schema_version());
  CHECK(text(db,
             "SELECT group_concat(id || ':' || fingerprint || ':' || status, ' ') FROM "
             "(SELECT * FROM runs ORDER BY id)") ==
        "1:a#1:analyzed 2:a:analyzed 3:b:ingested 4:c:analyzed 5:c#5:ingested");
  CHECK(find_run_by_fingerprint(db, "a") == 2);
  CHECK(find_run_by_fingerprint(db, "c") == 4);  // the complete one, not the latest
  CHECK(integer(db, "PRAGMA user_version") == current_schema_version());
}

TEST_CASE("RunLock: a second holder of the same inputs waits, other inputs do not") {
  TempDir dir;
  auto path = (dir.path() / "s.db").string();
  auto first = std::make_unique<RunLock>(path, "fp-1");
  REQUIRE(first->held());
  {
    bool waited = false;
    RunLock other(path, "fp-2", [&] { waited = true; });
    CHECK(other.held());
    CHECK_FALSE(waited);
  }
  std::atomic<bool> waiting{false}, got{false};
  std::thread second([&] {
    RunLock again(path, "fp-1", [&] { waiting = true; });
    got = true;
  });
  while (!waiting) std::this_thread::yield();
  CHECK_FALSE(got);
  first.reset();  // the second one gets it now
  second.join();
  CHECK(got);
  CHECK_FALSE(RunLock(":memory:", "fp-1").held());
}

TEST_CASE("a checkpoint that a full disk stops is reported, and finished once there is room") {
  auto& disk = perfsage::test::FullDiskVfs::install();
  TempDir dir;
  auto path = (dir.path() / "s.db").string();
  Database db(path);
  CHECK(db.checkpoint().empty());
  db.exec("PRAGMA wal_autocheckpoint=0");
  db.exec("CREATE TABLE t(x); INSERT INTO t VALUES(randomblob(1000000))");
  disk.set_full(true);
  std::string why = db.checkpoint();
  disk.set_full(false);
  CHECK(disk.failed_writes() > 0);
  CHECK_THAT(why, Catch::Contains(path + "-wal could not be copied into " + path) &&
                      Catch::Contains("full"));
  CHECK(db.checkpoint().empty());
  CHECK(integer(db, "SELECT length(x) FROM t") == 1000000);
}

TEST_CASE("a derived table (re)created leaves the stored runs to be analysed again") {
  Database db(":memory:");
  int64_t id = commit_run(db, "fp");
  set_run_status(db, id, kRunAnalyzed);
  std::vector<DerivedTable> tables{{"t_derived", "", {real("x", "", "").or_null()}, {}}};
  ensure_derived_tables(db, tables);  // the run has no rows in it: not complete any more
  CHECK(load_run(db, id)->status == kRunIngested);
  set_run_status(db, id, kRunAnalyzed);
  CHECK(ensure_derived_tables(db, tables).empty());  // unchanged: the run stays complete
  CHECK(load_run(db, id)->status == kRunAnalyzed);
  tables[0].columns.push_back(real("y", "", "").or_null());
  ensure_derived_tables(db, tables);  // reshaped: its rows are gone
  CHECK(load_run(db, id)->status == kRunIngested);
}

TEST_CASE("a disposable store is not synced and its log is not copied into the file on close") {
  TempDir dir;
  for (auto lifetime : {StoreLifetime::kept, StoreLifetime::disposable}) {
    const bool disposable = lifetime == StoreLifetime::disposable;
    INFO("disposable " << disposable);
    const std::string path = (dir.path() / (disposable ? "temp.db" : "kept.db")).string();
    {
      Database db(path, lifetime);
      CHECK(db.disposable() == disposable);
      CHECK(integer(db, "PRAGMA synchronous") == (disposable ? 0 : 1));  // OFF, NORMAL
      db.exec("CREATE TABLE t(x)");
      db.exec("INSERT INTO t VALUES(1)");
      CHECK(db.checkpoint().empty());
    }
    // Closing a kept store copies its log into the file and removes it; a disposable one's stays.
    CHECK(std::filesystem::exists(path + "-wal") == disposable);
    Database again(path);
    CHECK(integer(again, "SELECT count(*) FROM t") == 1);
  }
}

TEST_CASE("shapes learnt before still tell a store's table apart from a changed declaration") {
  std::vector<DerivedTable> before{{"t_learnt", "", {real("x", "", "").or_null()}, {}}};
  std::vector<DerivedTable> after = before;
  after[0].columns.push_back(integer("n", "count", ""));
  after[0].index = {"n"};
  learn_declared_shapes(before);
  learn_declared_shapes(after);
  Database db(":memory:");
  db.exec("CREATE TABLE t_learnt(run_id INTEGER NOT NULL, x TEXT)");  // made by hand, differs
  CHECK(ensure_derived_tables(db, before) == std::vector<std::string>{"t_learnt"});
  CHECK(ensure_derived_tables(db, before).empty());
  CHECK(ensure_derived_tables(db, after) == std::vector<std::string>{"t_learnt"});
  CHECK(integer(db, "SELECT count(*) FROM pragma_index_list('t_learnt')") == 1);
  CHECK(ensure_derived_tables(db, after).empty());
  CHECK(ensure_derived_tables(db, before) == std::vector<std::string>{"t_learnt"});
}
