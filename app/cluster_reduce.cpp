#include "app/cluster_reduce.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>

#include "analyzers/core/analyzer.h"
#include "analyzers/core/run_totals.h"
#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/iteration/iteration.h"
#include "analyzers/roofline/hardware_spec.h"
#include "analyzers/roofline/roofline.h"
#include "app/fleet_catalog.h"
#include "app/store_health.h"
#include "engine/evaluator.h"
#include "store/run_extract.h"
#include "store/run_registry.h"

namespace perfsage::app {
namespace {

// The tables a rank's rows are copied from: every table with a run_id column and, but for
// those computed across ranks, a rank column; and the ingest summary.
std::vector<std::pair<std::string, std::vector<std::string>>> rank_tables(store::Database& db) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  std::vector<std::string> tables;
  {
    auto st = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    while (st.step()) tables.push_back(st.text(0));
  }
  for (const auto& t : tables) {
    auto cols = store::table_columns(db, t);
    auto has = [&](const char* c) { return std::find(cols.begin(), cols.end(), c) != cols.end(); };
    if (!has("run_id") || tables_computed_across_ranks().count(t)) continue;
    if (has("rank") || t == "ingest_files") out.emplace_back(t, std::move(cols));
  }
  return out;
}

std::string quoted(const std::string& name) {
  return "\"" + name + "\"";
}

// The first text `sql` selects for the rank's run `id`, if any.
std::optional<std::string> first_text(store::Database& parts, int64_t id, const char* sql) {
  auto st = parts.prepare(sql);
  st.bind(1, id);
  if (st.step() && !st.is_null(0)) return st.text(0);
  return std::nullopt;
}

// What the reduce cannot compute from rank rows, when a rank holds it (docs/scale-out.md,
// "What stands in the way").
std::string unsupported(store::Database& parts, int64_t id) {
  if (auto graph = first_text(parts, id,
                              "SELECT min(path) FROM ingest_files WHERE run_id = ?1 AND collector "
                              "IN ('ge-graph-dump', 'onnx-model', 'ascend.fusion_result')"))
    return "a rank holds a model graph or its fusion results (" + *graph +
           "): graphs belong to the run, and the graph tables (graph_op_matches, "
           "fusion_candidates, transdata_chains, graph_cleanups) and the graph_node fact match "
           "them against every rank's op tasks";
  // msprof-analyze's cluster outputs hold every rank's rows in one file.
  if (auto file = first_text(
          parts, id,
          "SELECT min(path) FROM ingest_files WHERE run_id = ?1 AND ((collector = "
          "'ascend.step_trace' AND EXISTS (SELECT 1 FROM steps WHERE run_id = ?1 AND source = "
          "'cluster_step_trace_time')) OR (collector = 'ascend.communication' AND (path LIKE "
          "'%/cluster_communication%' OR path LIKE 'cluster_communication%')))"))
    return "a rank holds a cluster file of msprof-analyze (" + *file +
           "): it holds every rank's steps or collectives, and belongs to the whole cluster, not "
           "to a rank";
  return {};
}

// A store beside the cluster run's for the ranks' runs while they are assembled: they never
// show in the store's listings, and are gone with it.
class PartsStore {
 public:
  // In a folder of its own that only this user can enter (mkdtemp): a name another user could
  // guess and plant a link at would not do in a shared temporary folder.
  PartsStore() {
    std::string dir = (std::filesystem::temp_directory_path() / "perfsage-reduce-XXXXXX").string();
    if (::mkdtemp(dir.data()) == nullptr)
      throw store::StoreError("cannot make a temporary folder for the ranks' runs in " +
                              std::filesystem::temp_directory_path().string());
    dir_ = dir;
    path_ = dir_ / "ranks.db";
    db_ = open_catalog_replica(path_);
    // Gone with the reduce, whatever happens to the machine: no sync.
    db_->exec("PRAGMA synchronous=OFF");
  }
  ~PartsStore() {
    db_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  store::Database& db() { return *db_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path dir_, path_;
  std::unique_ptr<store::Database> db_;
};

Result<int64_t> assemble(store::Database& db, const ClusterParts& parts, const Knowledge& kn,
                         const Limits& limits) {
  const std::string what = "cluster run " + parts.header.job;
  if (!parts.missing.empty()) {
    std::string ranks;
    for (int64_t r : parts.missing) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    return Error{ErrorKind::input, what + ": rank" + (parts.missing.size() == 1 ? " " : "s ") +
                                       ranks +
                                       " could not be analysed; no partial cluster run is made"};
  }
  if (parts.ranks.empty()) return Error{ErrorKind::input, what + ": no rank"};
  std::vector<RankExtract> ranks = parts.ranks;
  std::sort(ranks.begin(), ranks.end(),
            [](const RankExtract& a, const RankExtract& b) { return a.rank < b.rank; });
  auto start = std::chrono::steady_clock::now();
  auto lap = [&](const char* stage) {
    auto now = std::chrono::steady_clock::now();
    spdlog::debug("reduce of {} ranks: {} in {:.1f} ms", ranks.size(), stage,
                  std::chrono::duration<double, std::milli>(now - start).count());
    start = now;
  };
  PartsStore part_store;
  store::Database& pdb = part_store.db();
  for (size_t i = 0; i < ranks.size(); ++i) {
    const int64_t id = static_cast<int64_t>(i) + 1;
    if (i > 0 && ranks[i].rank == ranks[i - 1].rank)
      return Error{ErrorKind::input,
                   what + ": rank " + std::to_string(ranks[i].rank) + " given twice"};
    store::import_run(pdb, id, {"cluster-reduce", ranks[i].rank}, ranks[i].extract);
    if (auto why = unsupported(pdb, id); !why.empty())
      return Error{ErrorKind::input, what + " cannot be assembled from its ranks: " + why};
    auto st = pdb.prepare(
        "SELECT rank FROM rank_totals WHERE run_id = ?1 UNION SELECT rank FROM steps WHERE "
        "run_id = ?1");
    st.bind(1, id);
    while (st.step())
      if (st.int64(0) != ranks[i].rank)
        return Error{ErrorKind::input, what + ": the extract of rank " +
                                           std::to_string(ranks[i].rank) + " holds rank " +
                                           std::to_string(st.int64(0)) + "'s rows"};
  }
  lap("importing the extracts");
  auto first = store::load_run(pdb, 1).value();
  // The store's derived tables in their declared shapes, as an analysis leaves them.
  store::ensure_derived_tables(db, analyzers::derived_tables());
  const auto tables = rank_tables(db);
  // Outside any transaction, as SQLite wants it.
  db.prepare("ATTACH DATABASE ?1 AS parts").bind(1, part_store.path().string()).run();
  struct Detach {
    store::Database& db;
    ~Detach() {
      try {
        db.exec("DETACH DATABASE parts");
      } catch (...) {  // leaves it attached until the connection closes
      }
    }
  } detach{db};
  // The counts the report reads of a run without events (store/run_extract.h).
  store::ensure_run_counts(db);
  int64_t run = 0;
  {
    store::RunWriter writer(db, parts.header);
    run = writer.run_id();
    // Rank by rank, each rank's rows in its own order.
    for (const auto& [table, cols] : tables) {
      std::string names, values;
      for (const auto& c : cols) {
        names += (names.empty() ? "" : ", ") + quoted(c);
        values += (values.empty() ? "" : ", ") + (c == "run_id" ? std::string("?1") : quoted(c));
      }
      auto copy =
          db.prepare("INSERT INTO main." + quoted(table) + "(" + names + ") SELECT " + values +
                     " FROM parts." + quoted(table) + " WHERE run_id = ?2 ORDER BY rowid");
      for (size_t i = 0; i < ranks.size(); ++i) {
        copy.bind(1, run).bind(2, static_cast<int64_t>(i) + 1);
        copy.run();
      }
    }
    db.prepare(
          "INSERT OR REPLACE INTO run_counts(run_id, ops, kernels) SELECT ?1, sum(ops), "
          "sum(kernels) FROM parts.run_counts")
        .bind(1, run)
        .run();
    lap("copying the ranks' rows");
    // What is computed across ranks, from the ranks' rows.
    analyzers::RunIdentity identity{first.framework, first.device, first.chip};
    analyzers::compute_run_totals(db, run, identity);
    analyzers::iteration::compute_rank_balance(db, run);
    auto hw = analyzers::roofline::compute_hardware_spec_of_ranks(db, run, kn.hardware);
    analyzers::roofline::compute_ascend_roofline_of_ranks(db, run, hw);
    analyzers::roofline::compute_gpu_roofline_of_ranks(db, run, hw);
    analyzers::gpu::align_collectives_of_ranks(db, run);
    writer.commit();
  }
  lap("computing across ranks");
  store::set_run_status(db, run, store::kRunAnalyzed);
  engine::EvaluationOptions opts;
  opts.budget = limits.pack_budget;
  opts.isolate_untrusted = limits.isolate_untrusted;
  opts.isolate_all = limits.isolate_all;
  auto ev = engine::evaluate(db, run, kn.packs, opts);
  if (auto full = save_results(db, run, false, ev.packs, to_stored(ev.findings)))
    return Error{ErrorKind::store, *full};
  lap("the packs");
  return run;
}

}  // namespace

const std::set<std::string>& tables_computed_across_ranks() {
  static const std::set<std::string> tables = {"iteration_ranks", "gpu_collective_ranks"};
  return tables;
}

Result<int64_t> reduce_cluster(store::Database& db, const ClusterParts& parts,
                               const Knowledge& knowledge, const Limits& limits) {
  try {
    return assemble(db, parts, knowledge, limits);
  } catch (const store::StoreError& e) {
    return Error{ErrorKind::store, e.what()};
  } catch (const std::exception& e) {
    return Error{ErrorKind::internal, e.what()};
  }
}

}  // namespace perfsage::app
