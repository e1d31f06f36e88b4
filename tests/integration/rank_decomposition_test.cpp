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
       "points per op over all ranks: the GPU points from gpu_op_groups (compared below), "
       "the Ascend points from the op tasks, not yet per rank"},
      {"shape_alignment", "Ascend ops over all ranks: not yet per rank"},
      {"op_type_stats", "op_stats summed over ranks: not yet per rank"},
      {"op_block_dims", "Ascend tasks over all ranks: not yet per rank"},
      {"op_name_totals", "Ascend tasks over all ranks: not yet per rank"},
      {"fusion_candidates", "graphs and op tables: not yet per rank"},
      {"transdata_chains", "graphs and op tables: not yet per rank"},
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

}  // namespace

TEST_CASE("every per-rank table of a cluster run is the union of its ranks analysed alone",
          "[ranks]") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  const fs::path root = dir.path() / "cluster";
  const auto& ranks = four_rank_samples();
  for (const auto& [rank, sample] : ranks) add_rank(root, sample, rank);

  const std::string whole_store = (dir.path() / "whole.db").string();
  auto whole_run = run_command("analyze", {root.string(), "--store", whole_store, "-q"});
  REQUIRE(whole_run.code == 0);
  std::map<int, std::string> rank_stores;
  for (const auto& [rank, sample] : ranks) {
    rank_stores[rank] = (dir.path() / ("rank" + std::to_string(rank) + ".db")).string();
    auto r = run_command("analyze", {(root / ("rank_" + std::to_string(rank))).string(), "--store",
                                     rank_stores[rank], "-q"});
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
    CHECK(rank_rows == all_rows);  // no row of a rank that is not one of the four
    ++compared;
    compared_rows += static_cast<int>(all_rows);
  }
  // The comparison saw real tables: steps, ranks, the GPU and host tables of four ranks.
  CHECK(compared >= 20);
  CHECK(compared_rows > 500);
  // The GPU Roofline points computed again from the ranks' tables (as the reduce of a cluster
  // run assembled from rank extracts computes them) are the points of the whole run.
  const auto point_columns = columns_but_run(whole, "roofline_ops");
  auto roofline = [&] { return rows_of(whole, "roofline_ops", point_columns, "run_id = 1"); };
  const auto points = roofline();
  CHECK(points.size() >= 5);
  auto hw = perfsage::analyzers::roofline::compute_hardware_spec(whole, 1, shipped_hardware());
  whole.exec("DELETE FROM roofline_ops");
  CHECK(perfsage::analyzers::roofline::compute_gpu_roofline_of_ranks(whole, 1, hw) ==
        static_cast<int>(points.size()));
  CHECK(roofline() == points);
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
}
