// A cluster run's per-rank tables are the union of its ranks' tables: each rank folder analysed
// on its own gives, row by row and in the same order, what the whole folder gives for that rank.
// That is what lets the reduce of a fanned-out cluster run (docs/scale-out.md, "Cluster runs")
// assemble the cluster's tables from rank extracts analysed by other daemons. (How the ranks'
// rows interleave is not compared: the steps of a source are written by the collector or an
// analyzer for all ranks at once. The reduce writes them rank by rank, so a fact that sums
// REAL values over ranks may differ from the one-machine sum in the last bits.) Derived tables
// without a rank column are run-level: each is listed below with what the reduce has to do
// about it, so that a new derived table has to say which kind it is.
#include <map>
#include <set>

#include "analyzer_resources.h"
#include "analyzers/core/analyzer.h"
#include "analyzers/roofline/roofline.h"
#include "app/cluster_reduce.h"
#include "cli_support.h"
#include "cluster_support.h"
#include "store/database.h"
#include "store/file_bytes.h"

using namespace perfsage::test;
namespace fs = std::filesystem;

namespace {

// Derived tables with no rank column, and why.
const std::map<std::string, std::string>& run_level_tables() {
  static const std::map<std::string, std::string> tables{
      {"hardware_specs", "matched from the ranks' hardware rows"},
      {"roofline_ops",
       "points per op over all ranks: the GPU points from gpu_op_groups, the Ascend points from "
       "ascend_op_groups (both compared below)"},
      {"shape_alignment", "Ascend ops over all ranks: from ascend_op_groups (compared below)"},
      {"graph_cleanups", "graphs: not per rank"},
      {"graph_op_matches", "graphs matched to op tables: not yet per rank"},
  };
  return tables;
}

// Tables with a rank column whose rows are computed across ranks, and what the reduce needs.
const std::map<std::string, std::string>& cross_rank_tables() {
  static const std::map<std::string, std::string> tables{
      {"iteration_ranks", "one step source for every rank: recomputed from the ranks' steps"},
      {"gpu_collective_ranks",
       "collectives aligned across ranks: aligned again from the ranks' gpu_collective_spans"},
  };
  return tables;
}

// The cluster folder analysed as a whole and each rank folder alone: every table with a rank
// column holds, rank by rank, the rows of the rank's own run in the same order; the points
// computed across ranks again from the ranks' tables (as the reduce computes them) are the whole
// run's. Returns the number of tables and rows compared.
std::pair<int, int> check_ranks_alone(const TempDir& dir, const ClusterDirs& cluster) {
  const std::string whole_store = (dir.path() / "whole.db").string();
  auto whole_run = run_command("analyze", {cluster.root.string(), "--store", whole_store, "-q"});
  REQUIRE(whole_run.code == 0);
  std::map<int, std::string> rank_stores;
  for (const auto& [rank, folder] : cluster.ranks) {
    rank_stores[rank] = (dir.path() / ("rank" + std::to_string(rank) + ".db")).string();
    auto r = run_command("analyze", {folder.string(), "--store", rank_stores[rank], "-q"});
    REQUIRE(r.code == 0);
  }

  perfsage::store::Database whole(whole_store);
  std::set<std::string> derived;
  for (const auto& t : perfsage::analyzers::derived_tables()) derived.insert(t.name);
  std::vector<std::string> tables;
  {
    auto st = whole.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    while (st.step()) tables.push_back(st.text(0));
  }
  int compared = 0, compared_rows = 0;
  for (const std::string& table : tables) {
    INFO(table);
    auto columns = perfsage::store::table_columns(whole, table);
    bool has_run = std::find(columns.begin(), columns.end(), "run_id") != columns.end();
    bool has_rank = std::find(columns.begin(), columns.end(), "rank") != columns.end();
    if (!has_run || cross_rank_tables().count(table)) continue;
    if (!has_rank) {
      // A derived table without ranks must be one the reduce knows to be run-level.
      if (derived.count(table)) CHECK(run_level_tables().count(table) == 1);
      continue;
    }
    std::erase(columns, "run_id");
    const size_t all_rows = rows_of(whole, table, columns, "run_id = 1").size();
    size_t rank_rows = 0;
    for (const auto& [rank, path] : rank_stores) {
      INFO("rank " << rank);
      auto whole_rows =
          rows_of(whole, table, columns, "run_id = 1 AND rank = " + std::to_string(rank));
      perfsage::store::Database part(path);
      // Every row of the rank's own run, in its own order: the reduce copies, it never re-sorts.
      CHECK(whole_rows == rows_of(part, table, columns, "run_id = 1"));
      rank_rows += whole_rows.size();
    }
    CHECK(rank_rows == all_rows);  // no row of a rank that is not one of the cluster's
    ++compared;
    compared_rows += static_cast<int>(all_rows);
  }
  // The hardware spec, the Roofline points (GPU and Ascend) and the Ascend shape checks computed
  // again from the ranks' tables (as the reduce of a cluster run assembled from rank extracts
  // computes them) are those of the whole run.
  std::map<std::string, std::vector<std::string>> before;
  for (const char* table : {"roofline_ops", "shape_alignment"})
    before[table] = rows_of(whole, table, columns_but_run(whole, table), "run_id = 1");
  CHECK(before["roofline_ops"].size() >= 5);
  before["hardware_specs"] =
      rows_of(whole, "hardware_specs", columns_but_run(whole, "hardware_specs"), "run_id = 1");
  auto hw =
      perfsage::analyzers::roofline::compute_hardware_spec_of_ranks(whole, 1, shipped_hardware());
  whole.exec("DELETE FROM roofline_ops; DELETE FROM shape_alignment");
  perfsage::analyzers::roofline::compute_ascend_roofline_of_ranks(whole, 1, hw);
  perfsage::analyzers::roofline::compute_gpu_roofline_of_ranks(whole, 1, hw);
  for (const auto& [table, rows] : before) {
    INFO(table);
    CHECK(rows_of(whole, table, columns_but_run(whole, table), "run_id = 1") == rows);
  }
  for (const auto& [table, why] : run_level_tables()) {
    INFO(table << ": listed as run-level but not a derived table");
    CHECK(derived.count(table) == 1);
  }
  std::set<std::string> across;
  for (const auto& [table, why] : cross_rank_tables()) {
    INFO(table << ": listed as computed across ranks but not a derived table");
    CHECK(derived.count(table) == 1);
    across.insert(table);
  }
  // The reduce computes exactly these again rather than copying them.
  CHECK(across == perfsage::app::tables_computed_across_ranks());
  return {compared, compared_rows};
}

}  // namespace

TEST_CASE("every per-rank table of a cluster run is the union of its ranks analysed alone",
          "[ranks]") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  auto [tables, rows] =
      check_ranks_alone(dir, kineto_cluster(dir.path() / "cluster", four_rank_samples()));
  // The comparison saw real tables: steps, ranks, the GPU and host tables of four ranks.
  CHECK(tables >= 20);
  CHECK(rows > 500);
}

TEST_CASE("every per-rank table of an Ascend cluster run is the union of its ranks analysed alone",
          "[ranks]") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  const fs::path root = dir.path() / "cluster";
  auto cluster = ascend_cluster(root, ascend_rank_samples());
  auto [tables, rows] = check_ranks_alone(dir, cluster);
  // Op tables of three ranks, a timeline-only rank's ops, steps and host events.
  CHECK(tables >= 15);
  CHECK(rows > 1000);
  perfsage::store::Database whole((dir.path() / "whole.db").string());
  // op_stats: every rank (rank 2's from its timeline); the op-table ranks' types and groups;
  // block dims above 0 in two of them.
  const std::map<std::string, int64_t> ranks_in{{"op_stats", 4},
                                                {"op_type_stats", 3},
                                                {"op_name_totals", 3},
                                                {"ascend_op_groups", 3},
                                                {"op_block_dims", 2}};
  for (const auto& [table, ranks] : ranks_in) {
    INFO(table);
    auto st = whole.prepare("SELECT count(DISTINCT rank) FROM " + table);
    REQUIRE(st.step());
    CHECK(st.int64(0) == ranks);
  }
}
