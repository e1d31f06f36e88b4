// The reduce of a cluster run fanned out by rank (app/cluster_reduce.h): each rank analysed alone
// into a store of its own and published as an extract; the cluster run assembled from the
// extracts alone, without an event, has the findings, ids and gains, and the run summary of a
// one-machine `perfsage analyze` of the whole folder. A missing rank, a rank's extract holding
// another rank and what the reduce cannot assemble yet are refused, with nothing stored.
#include "app/cluster_reduce.h"

#include "app_knowledge.h"
#include "cli_support.h"
#include "cluster_support.h"
#include "store/run_extract.h"
#include "store/run_registry.h"

using namespace perfsage;
using namespace perfsage::test;
namespace fs = std::filesystem;

namespace {

// Each rank folder of `cluster` analysed into a store of its own, as its extract.
std::vector<app::RankExtract> rank_extracts(const TempDir& dir, const ClusterDirs& cluster) {
  std::vector<app::RankExtract> out;
  for (const auto& [rank, folder] : cluster.ranks) {
    const std::string path = (dir.path() / ("rank" + std::to_string(rank) + ".db")).string();
    REQUIRE(run_command("analyze", {folder.string(), "--store", path, "-q"}).code == 0);
    store::Database db(path);
    out.push_back({rank, store::extract_run(db, 1)});
  }
  return out;
}

store::RunHeader header(const fs::path& root) {
  return {"cluster", {root.string()}, "cluster-fingerprint", "2026-12-04T00:00:00Z"};
}

int64_t runs_in(store::Database& db) {
  auto st = db.prepare("SELECT count(*) FROM runs");
  st.step();
  return st.int64(0);
}

// The cluster folder analysed on one machine, and each rank alone and reduced: the same run
// summary, tables computed across ranks, findings and pack results.
void check_reduce_equals_whole(const TempDir& dir, const ClusterDirs& cluster,
                               bool with_collectives) {
  const fs::path& root = cluster.root;
  const std::string whole_store = (dir.path() / "whole.db").string();
  auto one = run_command("analyze", {root.string(), "--store", whole_store, "--format", "json"});
  REQUIRE(one.code == 0);
  auto whole = parse_report(one.out);
  REQUIRE(whole.recommendations_size() > 0);

  auto extracts = rank_extracts(dir, cluster);
  store::Database db((dir.path() / "reduce.db").string());
  app::ClusterParts parts{header(root), extracts, {}};
  auto run = app::reduce_cluster(db, parts, *test::shipped_knowledge(), {});
  INFO((run ? std::string() : run.error().message));
  REQUIRE(run);
  CHECK(runs_in(db) == 1);  // the ranks' runs were assembled beside the store, not in it
  auto reduced = app::load_report(db, *run);
  REQUIRE(reduced);
  store::Database whole_db(whole_store);
  for (const char* table : {"iteration_ranks", "gpu_collective_ranks", "hardware_specs",
                            "roofline_ops", "shape_alignment"}) {
    INFO(table);
    const auto columns = columns_but_run(db, table);
    CHECK(rows_of(db, table, columns, "run_id = " + std::to_string(*run)) ==
          rows_of(whole_db, table, columns, "run_id = 1"));
  }
  CHECK(rows_of(db, "gpu_collective_ranks", columns_but_run(db, "gpu_collective_ranks"),
                "run_id = " + std::to_string(*run))
            .empty() == !with_collectives);

  // The run summary.
  const auto &a = whole.run(), &b = reduced->run();
  CHECK(b.ranks() == a.ranks());
  CHECK(b.steps() == a.steps());
  CHECK(b.step_time_us() == Approx(a.step_time_us()).epsilon(1e-12));
  CHECK(b.device_time_us() == a.device_time_us());
  CHECK(b.kernels() == a.kernels());
  CHECK(b.ops() == a.ops());
  CHECK(b.device() == a.device());
  // Every finding, in rank order, with its id, severity, gain, message and evidence; the packs
  // ran on it as on the whole folder.
  check_same_findings(whole, *reduced);
}

}  // namespace

TEST_CASE("a cluster run reduced from its ranks' extracts has the one-machine findings",
          "[ranks]") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  check_reduce_equals_whole(dir, kineto_cluster(dir.path() / "cluster", four_rank_samples()),
                            false);
}

TEST_CASE("a data-parallel cluster reduced from its ranks: collectives aligned across ranks",
          "[ranks]") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  check_reduce_equals_whole(dir, kineto_cluster(dir.path() / "cluster", ddp_rank_samples()), true);
}

TEST_CASE("an Ascend cluster reduced from its ranks has the one-machine findings", "[ranks]") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  check_reduce_equals_whole(dir, ascend_cluster(dir.path() / "cluster", ascend_rank_samples()),
                            false);
}

TEST_CASE("an Ascend cluster of timelines reduced from its ranks has the one-machine findings",
          "[ranks]") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  check_reduce_equals_whole(
      dir, ascend_cluster(dir.path() / "cluster", ascend_timeline_rank_samples()), false);
}

TEST_CASE("Ascend ranks the reduce cannot assemble are refused, naming what stands in the way",
          "[ranks]") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  auto refused = [&](const std::string& name, const std::map<int, AscendRankFiles>& samples) {
    auto cluster = ascend_cluster(dir.path() / name, samples);
    TempDir ranks;
    auto extracts = rank_extracts(ranks, cluster);
    store::Database db((dir.path() / (name + ".db")).string());
    auto run = app::reduce_cluster(db, {header(cluster.root), extracts, {}},
                                   *test::shipped_knowledge(), {});
    REQUIRE_FALSE(run);
    CHECK(run.error().kind == app::ErrorKind::input);
    CHECK(runs_in(db) == 0);
    return run.error().message;
  };
  // The timeline cluster with one more file in a rank's profiler output.
  auto with_file = [](int rank, const fs::path& source) {
    auto samples = ascend_timeline_rank_samples();
    samples[rank].push_back({source, source.filename().string()});
    return samples;
  };
  // A model graph belongs to the run.
  CHECK_THAT(
      refused("graph",
              with_file(1, samples_dir() / "ascend" / "oam-tools" / "ge_proto_00056_Build.txt")),
      Catch::Contains("a rank holds a model graph") && Catch::Contains("ge_proto_00056_Build.txt"));
  // msprof-analyze's cluster step trace holds every rank's steps.
  CHECK_THAT(refused("cluster_file", with_file(0, samples_dir() / "ascend" / "mstt" /
                                                      "cluster_step_trace_time.csv")),
             Catch::Contains("a rank holds a cluster file of msprof-analyze") &&
                 Catch::Contains("cluster_step_trace_time.csv"));
}

TEST_CASE("a cluster run with a missing or mislabelled rank is refused and stores nothing",
          "[ranks]") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  const auto cluster = kineto_cluster(dir.path() / "cluster", four_rank_samples());
  const fs::path& root = cluster.root;
  auto extracts = rank_extracts(dir, cluster);
  store::Database db((dir.path() / "reduce.db").string());

  // Rank 2's job failed: the reduce says so instead of a cluster of three.
  std::vector<app::RankExtract> three;
  for (const auto& e : extracts)
    if (e.rank != 2) three.push_back(e);
  auto missing =
      app::reduce_cluster(db, {header(root), three, {2}}, *test::shipped_knowledge(), {});
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().message, Catch::Contains("rank 2 could not be analysed"));

  // Rank 1's extract given as rank 0's.
  auto swapped = extracts;
  swapped[0].extract = extracts[1].extract;
  auto wrong = app::reduce_cluster(db, {header(root), swapped, {}}, *test::shipped_knowledge(), {});
  REQUIRE_FALSE(wrong);
  CHECK_THAT(wrong.error().message, Catch::Contains("the extract of rank 0 holds rank 1"));

  // A damaged extract.
  auto damaged = extracts;
  damaged[3].extract.resize(damaged[3].extract.size() / 2);
  auto broken =
      app::reduce_cluster(db, {header(root), damaged, {}}, *test::shipped_knowledge(), {});
  REQUIRE_FALSE(broken);
  CHECK(broken.error().kind == app::ErrorKind::store);

  CHECK(runs_in(db) == 0);
}
