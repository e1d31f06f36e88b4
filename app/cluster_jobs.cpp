#include "app/cluster_jobs.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "app/actions_service.h"
#include "app/cluster_reduce.h"
#include "app/job_identity.h"
#include "collectors/ascend/layout.h"
#include "collectors/ingest.h"
#include "collectors/kineto/trace_metadata.h"
#include "store/file_bytes.h"
#include "store/pg/pg_catalog.h"
#include "store/run_extract.h"
#include "store/run_registry.h"

namespace perfsage::app {
namespace fs = std::filesystem;

namespace {

bool under(const fs::path& file, const std::string& dir) {
  return file.string().rfind(dir + "/", 0) == 0;
}

// An Ascend file that belongs to one rank's framework-profiler folder (`*_ascend_pt`, whose
// rank the collector reads from the folder): that rank and folder. Graphs and fusion results
// belong to the run, msprof-analyze's cluster files to every rank: nullopt.
std::optional<std::pair<int64_t, std::string>> ascend_rank(const collectors::InputFile& f,
                                                           const std::string& collector) {
  if (collector == "ascend.fusion_result") return std::nullopt;
  if (collectors::ascend::base_name(f.path).rfind("cluster_", 0) == 0) return std::nullopt;
  auto loc = collectors::ascend::locate(f.path);
  if (loc.rank_dir.empty()) return std::nullopt;
  return std::make_pair(loc.rank, loc.rank_dir.string());
}

}  // namespace

std::optional<std::vector<store::RankInputs>> plan_rank_jobs(const std::vector<fs::path>& inputs) {
  // Each rank's inputs: Kineto traces by file, Ascend ranks by their folder, so that a rank job
  // expands the folder into the very files (profiler_info, raw data) the whole folder lists.
  std::map<int64_t, std::set<std::string>> ranks;
  std::set<std::string> rank_dirs;
  std::vector<fs::path> loose, traces;  // files no collector reads or only counts; traces
  const auto named = normal_inputs(inputs);
  try {
    for (const auto& f : collectors::expand_inputs(named)) {
      if (!f.skip_reason.empty()) {
        loose.push_back(f.path);
        continue;
      }
      auto probe = collectors::probe_file(f.path);
      const auto* collector = collectors::detect_collector(probe);
      if (!collector) {
        loose.push_back(f.path);
        continue;
      }
      const std::string name = collector->name();
      if (name == "kineto") {
        auto rank = collectors::kineto::rank_from_head(probe.head, f.path.filename().string());
        if (!rank) return std::nullopt;
        ranks[*rank].insert(f.path.string());
        traces.push_back(f.path);
      } else if (name.rfind("ascend.", 0) == 0) {
        auto rank = ascend_rank(f, name);
        if (!rank) return std::nullopt;
        ranks[rank->first].insert(rank->second);
        rank_dirs.insert(rank->second);
      } else {
        return std::nullopt;  // a model graph: the run's, not a rank's
      }
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
  // Every other file must go with a rank's folder (it would be missing from the cluster run),
  // and no trace may be read twice (as itself and in a rank's folder).
  auto in_rank_dir = [&](const fs::path& p) {
    return std::any_of(rank_dirs.begin(), rank_dirs.end(),
                       [&](const std::string& d) { return under(p, d); });
  };
  for (const auto& p : loose)
    if (!in_rank_dir(p)) return std::nullopt;
  for (const auto& p : traces)
    if (in_rank_dir(p)) return std::nullopt;
  // A rank's folder must lie within what the job names (a folder above it is not the job's).
  for (const auto& d : rank_dirs)
    if (std::none_of(named.begin(), named.end(),
                     [&](const fs::path& n) { return d == n.string() || under(d, n.string()); }))
      return std::nullopt;
  if (ranks.size() < 2) return std::nullopt;
  std::vector<store::RankInputs> out;
  for (auto& [rank, files] : ranks) out.push_back({rank, {files.begin(), files.end()}});
  return out;
}

fs::path rank_spool(const fs::path& store) {
  return fs::path(store.string() + ".ranks");
}

namespace {
std::string folder_prefix(int64_t job_id) {
  return "job-" + std::to_string(job_id) + "-";
}
}  // namespace

void remove_rank_folders(const fs::path& spool, int64_t job_id) {
  std::error_code ec;
  for (fs::directory_iterator it(spool, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (job_id == 0 || name.rfind(folder_prefix(job_id), 0) == 0) {
      std::error_code rm;
      fs::remove_all(it->path(), rm);
    }
  }
}

Result<fs::path> analyze_rank(const AnalysisRequest& request, const fs::path& spool, int64_t job_id,
                              const Knowledge& knowledge, const Limits& limits) {
  fs::path dir;
  try {
    fs::create_directories(spool);
    std::string tmpl = (spool / (folder_prefix(job_id) + "XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr)
      return Error{ErrorKind::store, "cannot make a folder for the rank in " + spool.string()};
    dir = tmpl;
    std::string extract;
    {
      store::Database db((dir / "rank.db").string(), store::StoreLifetime::disposable);
      AnalysisRequest req = request;
      req.evaluate_packs = false;  // the reduce's, on the cluster run
      req.reuse_existing = false;
      auto out = analyze(db, req, knowledge, limits);
      if (!out) return out.error();
      if (out->nothing_recognised) {
        std::string why = "nothing recognised in the rank's inputs";
        for (const auto& n : out->notices)
          if (n.rfind("nothing recognised", 0) == 0) why = n;
        return Error{ErrorKind::input, why};
      }
      extract = store::extract_run(db, out->run_id);
    }
    for (const char* f : {"rank.db", "rank.db-wal", "rank.db-shm"}) fs::remove(dir / f);
    std::ofstream out(dir / "extract", std::ios::binary);
    out.write(extract.data(), static_cast<std::streamsize>(extract.size()));
    out.close();
    if (!out) return Error{ErrorKind::store, "cannot write the rank's extract in " + dir.string()};
    return dir;
  } catch (const std::exception& e) {
    return Error{ErrorKind::store,
                 std::string("rank analysis in ") + dir.string() + ": " + e.what()};
  }
}

namespace {

Result<int64_t> reduce(store::Database& db, const ReduceRequest& req, const Knowledge& kn,
                       const Limits& limits) {
  const auto normal = normal_inputs(req.inputs);
  ClusterParts parts;
  parts.header.job = req.job.empty() ? default_job(normal) : req.job;
  for (const auto& p : normal) parts.header.inputs.push_back(p.string());
  parts.header.fingerprint = collectors::fingerprint_inputs(collectors::expand_inputs(normal));
  parts.header.created = req.clock();
  std::string why_missing;
  store::pg::PgCatalog catalog(req.postgres);
  for (const auto& r : catalog.rank_results(req.job_id)) {
    if (r.state == "done" && r.kept) {
      if (auto extract = catalog.rank_extract(r.job_id)) {
        parts.ranks.push_back({r.rank, std::move(*extract)});
        continue;
      }
    }
    parts.missing.push_back(r.rank);
    why_missing += "; rank " + std::to_string(r.rank) + " (job " + std::to_string(r.job_id) + ", " +
                   r.state + "): " + (r.reason.empty() ? "no result" : r.reason);
  }
  if (parts.ranks.empty() && parts.missing.empty())
    return Error{ErrorKind::input, "reduce job " + std::to_string(req.job_id) + " has no rank job"};
  // A fresh analysis of the same inputs replaces the stored run; so does the reduce.
  if (auto stored = store::find_run_by_fingerprint(db, parts.header.fingerprint))
    store::delete_run(db, *stored);
  auto run = reduce_cluster(db, parts, kn, limits);
  if (run) {
    // Closing the loop as an analysis does: applied actions of this job whose next run this is
    // are judged now (an error leaves them unjudged, as it does there).
    auto judged = verify_applied_actions(db, default_actor(req.clock), *run);
    if (!judged)
      spdlog::warn("cluster run {}: applied actions could not be judged: {}", *run,
                   judged.error().message);
  }
  if (run || why_missing.empty()) return run;
  Error e = run.error();
  e.message += why_missing;
  return e;
}

}  // namespace

Result<int64_t> reduce_cluster_job(store::Database& db, const ReduceRequest& req,
                                   const Knowledge& knowledge, const Limits& limits) {
  try {
    return reduce(db, req, knowledge, limits);
  } catch (const store::InputError& e) {
    return Error{ErrorKind::input, e.what()};
  } catch (const store::StoreError& e) {
    return Error{ErrorKind::store, e.what()};
  } catch (const std::exception& e) {
    return Error{ErrorKind::internal, e.what()};
  }
}

}  // namespace perfsage::app
