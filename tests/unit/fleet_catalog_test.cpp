// The shared mode's catalog: a run's extract (store/run_extract.h) imported into a replica reads
// as it does in the store that analysed it — report, charts, compare — without its events; a
// damaged extract changes nothing; publication is exactly once per job and only by the lease
// holder (store/pg/pg_catalog.h, on a real PostgreSQL); any daemon's replica follows every
// daemon's publications.
#include "app/fleet_catalog.h"

#include <google/protobuf/util/message_differencer.h>

#include <catch2/catch.hpp>

#include "app/analysis.h"
#include "app/job_queue.h"
#include "app/knowledge.h"
#include "app/run_comparison.h"
#include "app/run_detail.h"
#include "app/shared_queue.h"
#include "app_knowledge.h"
#include "pg_server.h"
#include "store/database.h"
#include "store/run_extract.h"
#include "store/run_registry.h"
#include "test_support.h"

using namespace perfsage;
namespace fs = std::filesystem;

namespace {

int64_t analyse(store::Database& db, const fs::path& input, const std::string& job) {
  app::AnalysisRequest req;
  req.inputs = {input};
  req.job = job;
  auto out = app::analyze(db, req, *test::shipped_knowledge(), {});
  REQUIRE(out);
  return out->run_id;
}

int64_t test_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

fs::path example() {
  return test::source_dir() / "examples" / "resnet50_rank0_ascend_pt";
}

// The example again under another path: a second run of the job.
fs::path edited_example(const fs::path& dir) {
  fs::copy(example(), dir / "run2", fs::copy_options::recursive);
  return dir / "run2";
}

// The run's view (API detail: summary, report, charts) with its id as 0: two runs' views compare
// equal when they say the same (a map's JSON order is the protobuf library's).
perfsage::v1::RunDetail view(store::Database& db, int64_t id) {
  auto d = app::load_run_detail(db, id);
  REQUIRE(d);
  d->mutable_summary()->set_id(0);
  d->mutable_report()->mutable_run()->set_id(0);
  return *d;
}

bool same_view(store::Database& a, int64_t id_a, store::Database& b, int64_t id_b) {
  auto va = view(a, id_a), vb = view(b, id_b);
  std::string diff;
  google::protobuf::util::MessageDifferencer d;
  d.ReportDifferencesToString(&diff);
  if (d.Compare(va, vb)) return true;
  WARN(diff);
  return false;
}

// The example analysed into a store at `store_path` (its local run id), and its job enqueued
// and claimed by `owner` on `queue` (the job's id).
std::pair<int64_t, int64_t> analysed_and_claimed(app::JobQueue& queue, const fs::path& store_path,
                                                 const std::string& owner) {
  int64_t local = 0;
  {
    store::Database db(store_path.string());
    local = analyse(db, example(), "resnet");
  }
  auto job = queue.enqueue({"resnet", {example().string()}, "watch", "sig", false},
                           app::Dedup::pending, "2026-12-04T00:00:00Z");
  auto claimed = queue.claim(owner, "2026-12-04T00:00:01Z", test_now_ms() + 60000);
  REQUIRE(claimed);
  REQUIRE(claimed->id == job.id);
  return {local, job.id};
}

// `table`'s rows of run `id`: some, and all of rank 0.
void check_rank_zero(store::Database& replica, const std::string& table, int64_t id) {
  INFO(table);
  auto st = replica.prepare("SELECT count(*), count(DISTINCT rank), min(rank) FROM " + table +
                            " WHERE run_id = ?1");
  st.bind(1, id);
  REQUIRE(st.step());
  CHECK(st.int64(0) > 0);
  CHECK(st.int64(1) == 1);
  CHECK(st.int64(2) == 0);
}

}  // namespace

TEST_CASE("run extract: an imported run reads as in the store that analysed it") {
  test::TempDir dir;
  store::Database db((dir.path() / "store.db").string());
  const int64_t a = analyse(db, example(), "resnet");
  const int64_t b = analyse(db, edited_example(dir.path()), "resnet");
  REQUIRE(a != b);

  auto opened = app::open_catalog_replica(dir.path() / "replica.db");
  store::Database& replica = *opened;
  const std::string ea = store::extract_run(db, a), eb = store::extract_run(db, b);
  store::import_run(replica, 70, {"host-a", a}, ea);
  store::import_run(replica, 71, {"host-a", b}, eb);

  // Every part of the run's view: report, findings, packs, base, charts; only the id differs.
  CHECK(same_view(db, a, replica, 70));
  CHECK(view(replica, 70).report().run().ops() > 0);

  auto here = app::compare_runs(db, a, b, {});
  auto there = app::compare_runs(replica, 70, 71, {});
  REQUIRE(here);
  INFO((there ? std::string() : there.error().message));
  REQUIRE(there);
  CHECK(there->findings_size() == here->findings_size());
  CHECK(there->ops_size() == here->ops_size());
  CHECK(there->a().step_time_us() == here->a().step_time_us());

  // Published again (an action changed it): replaced, not added to.
  store::import_run(replica, 70, {"host-a", a}, ea);
  CHECK(same_view(db, a, replica, 70));
  CHECK(store::imported_run(replica, {"host-a", a}) == 70);
  CHECK_FALSE(store::imported_run(replica, {"host-b", a}));
  // The events stayed behind.
  auto st = replica.prepare("SELECT count(*) FROM event_blocks");
  REQUIRE(st.step());
  CHECK(st.int64(0) == 0);
}

TEST_CASE("run extract: a run published before its tables had a rank column reads as rank 0") {
  PERFSAGE_REQUIRE_SAMPLES();
  test::TempDir dir;
  store::Database db((dir.path() / "store.db").string());
  const int64_t a =
      analyse(db,
              test::samples_dir() / "kineto" /
                  "hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
              "alexnet");
  // An older daemon's store: these tables summed over all ranks and had no rank column.
  for (const char* t : {"kernel_groups", "kernel_totals", "copy_groups", "gpu_launch_profile",
                        "host_op_totals", "host_op_self"})
    db.exec(std::string("ALTER TABLE ") + t + " DROP COLUMN rank");
  auto opened = app::open_catalog_replica(dir.path() / "replica.db");
  store::Database& replica = *opened;
  store::import_run(replica, 70, {"host-a", a}, store::extract_run(db, a));
  check_rank_zero(replica, "kernel_totals", 70);
  // The report, findings and charts read the same as in the older store.
  CHECK(same_view(db, a, replica, 70));
}

TEST_CASE("run extract: an Ascend run published before its op tables had a rank column") {
  test::TempDir dir;
  store::Database db((dir.path() / "store.db").string());
  const int64_t a = analyse(db, example(), "resnet");
  // An older daemon's store: these tables summed over all ranks and had no rank column.
  for (const char* t : {"op_type_stats", "op_block_dims", "op_name_totals"})
    db.exec(std::string("ALTER TABLE ") + t + " DROP COLUMN rank");
  auto opened = app::open_catalog_replica(dir.path() / "replica.db");
  store::Database& replica = *opened;
  store::import_run(replica, 71, {"host-a", a}, store::extract_run(db, a));
  for (const char* t : {"op_type_stats", "op_block_dims", "op_name_totals"})
    check_rank_zero(replica, t, 71);
  CHECK(same_view(db, a, replica, 71));
}

TEST_CASE("run extract: a damaged extract is refused and changes nothing") {
  test::TempDir dir;
  store::Database db((dir.path() / "store.db").string());
  const int64_t a = analyse(db, example(), "resnet");
  auto opened = app::open_catalog_replica(dir.path() / "replica.db");
  store::Database& replica = *opened;
  const std::string good = store::extract_run(db, a);
  store::import_run(replica, 5, {"h", a}, good);

  std::string flipped = good;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x5a);
  std::string huge = good;
  huge[7] = '\x7f';  // an uncompressed size of petabytes
  for (const auto& bad : {std::string(), good.substr(0, 20), flipped, huge}) {
    CHECK_THROWS_AS(store::import_run(replica, 5, {"h", a}, bad), store::StoreError);
    CHECK(same_view(db, a, replica, 5));
  }
  // Damage anywhere: every cut and every flipped byte is refused with a StoreError (zlib's
  // checksum, SQLite's quick_check), never a crash, and the replica keeps what it had.
  uint32_t seed = 12345;
  for (int i = 0; i < 300; ++i) {
    seed = seed * 1103515245u + 12345u;
    std::string bad = good;
    size_t at = seed % bad.size();
    if (i % 3 == 0) {
      bad.resize(at);
    } else {
      bad[at] = static_cast<char>(bad[at] ^ (1 + (seed >> 16) % 255));
    }
    INFO("damage " << i << " at byte " << at);
    CHECK_THROWS_AS(store::import_run(replica, 5, {"h", a}, bad), store::StoreError);
  }
  CHECK(same_view(db, a, replica, 5));
}

TEST_CASE("catalog: a job's run is published once, by the daemon holding its lease") {
  PERFSAGE_REQUIRE_POSTGRES(server);
  test::TempDir dir;
  const std::string uri = server->fresh_database();
  auto queue = app::open_shared_queue(uri, {}, "");
  app::FleetCatalog one(uri, "host-1", dir.path() / "one.catalog");
  app::FleetCatalog two(uri, "host-2", dir.path() / "two.catalog");
  const fs::path store_path = dir.path() / "one.db";
  auto [local, job_id] = analysed_and_claimed(*queue, store_path, "host-1");

  // Another daemon, not holding the job, publishes nothing.
  CHECK_FALSE(two.publish_job_run(job_id, "host-2", store_path, local, "2026-12-04T00:00:02Z"));
  CHECK(two.sync() == 0);

  auto id = one.publish_job_run(job_id, "host-1", store_path, local, "2026-12-04T00:00:03Z");
  REQUIRE(id);
  auto done = queue->get(job_id);
  REQUIRE(done);
  CHECK(done->state == app::JobState::done);
  CHECK(done->run_id == *id);
  CHECK(queue->job_of_run(*id) == job_id);
  // The job is done: publishing it again is refused.
  CHECK_FALSE(one.publish_job_run(job_id, "host-1", store_path, local, "2026-12-04T00:00:04Z"));
  CHECK(one.published(local) == id);
  CHECK(one.origin_of(*id)->instance == "host-1");

  // Every daemon's replica serves it under the catalog id.
  CHECK(two.sync() == 1);
  CHECK(two.sync() == 0);
  store::Database mine(store_path.string());
  auto opened = app::open_catalog_replica(two.replica_path());
  store::Database& theirs = *opened;
  CHECK(same_view(mine, local, theirs, *id));

  // Republished (an action on it): same id, the replica follows.
  CHECK(one.republish(store_path, local) == id);
  CHECK(two.sync() == 1);
  CHECK_FALSE(two.republish(store_path, local));  // host-2 never published it

  perfsage::v1::PackStatus ok;
  ok.set_name("fusion");
  ok.set_status("ok");
  one.publish_packs(3, {ok});
  two.publish_packs(1, {});
  auto fleet = two.fleet();
  REQUIRE(fleet.daemons_size() == 1);  // host-2 serves no pack
  CHECK(fleet.daemons(0).instance() == "host-1");
  CHECK(fleet.daemons(0).generation() == 3);
  CHECK(fleet.daemons(0).packs(0).name() == "fusion");
}

TEST_CASE("catalog: daemons run as a role that only reads and writes rows") {
  PERFSAGE_REQUIRE_POSTGRES(server);
  test::TempDir dir;
  const std::string owner_uri = server->fresh_database();
  const std::string db = owner_uri.substr(owner_uri.find(":///") + 4,
                                          owner_uri.find('?') - owner_uri.find(":///") - 4);
  // The role docs/scale-out.md ("Roles") gives the daemons.
  REQUIRE(server->psql("CREATE ROLE psd_rows LOGIN", db));
  std::string rows_uri = owner_uri;
  rows_uri.replace(rows_uri.find("user=postgres"), 13, "user=psd_rows");
  // Without the schema, that role cannot make it: the error says which step and why.
  try {
    app::migrate_shared_database(rows_uri);
    FAIL("a role without CREATE migrated the schema");
  } catch (const app::StoreError& e) {
    CHECK_THAT(e.what(), Catch::Contains("permission denied"));
    CHECK_THAT(e.what(), Catch::Contains("migration"));
  }
  CHECK(app::migrate_shared_database(owner_uri) >= 2);
  REQUIRE(server->psql(
      "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO psd_rows; "
      "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO psd_rows",
      db));
  auto queue = app::open_shared_queue(rows_uri, {}, "");
  app::FleetCatalog catalog(rows_uri, "host-1", dir.path() / "one.catalog");
  const fs::path store_path = dir.path() / "one.db";
  auto [local, job_id] = analysed_and_claimed(*queue, store_path, "host-1");
  CHECK(catalog.publish_job_run(job_id, "host-1", store_path, local, "2026-12-04T00:00:02Z"));
  CHECK(catalog.sync() == 1);
  catalog.publish_packs(1, {});
}
