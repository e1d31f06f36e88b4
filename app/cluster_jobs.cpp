#include "app/cluster_jobs.h"

#include <unistd.h>

#include <fstream>
#include <map>

#include "app/cluster_reduce.h"
#include "app/job_identity.h"
#include "collectors/ingest.h"
#include "collectors/kineto/trace_metadata.h"
#include "store/file_bytes.h"
#include "store/pg/pg_catalog.h"
#include "store/run_extract.h"
#include "store/run_registry.h"

namespace perfsage::app {
namespace fs = std::filesystem;

std::optional<std::vector<store::RankInputs>> plan_rank_jobs(const std::vector<fs::path>& inputs) {
  std::map<int64_t, std::vector<std::string>> ranks;
  try {
    for (const auto& f : collectors::expand_inputs(normal_inputs(inputs))) {
      // A file the analysis only counts (msprof's raw data) belongs to no rank: one job.
      if (!f.skip_reason.empty()) return std::nullopt;
      auto probe = collectors::probe_file(f.path);
      const auto* collector = collectors::detect_collector(probe);
      if (!collector || collector->name() != "kineto") return std::nullopt;
      // The rank the collector will give the file: distributedInfo, else the file name. One
      // named after the events cannot be seen up front (its file name might say another).
      auto rank = collectors::kineto::rank_in_head(probe.head);
      if (!rank && probe.head.find("\"distributedInfo\"") == std::string::npos)
        rank = collectors::kineto::rank_from_file_name(f.path.filename().string());
      if (!rank) return std::nullopt;
      ranks[*rank].push_back(f.path.string());
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (ranks.size() < 2) return std::nullopt;
  std::vector<store::RankInputs> out;
  for (auto& [rank, files] : ranks) out.push_back({rank, std::move(files)});
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
  for (auto& r : catalog.rank_results(req.job_id)) {
    if (r.state == "done" && r.extract) {
      parts.ranks.push_back({r.rank, std::move(*r.extract)});
      continue;
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
