#include "app/cluster_jobs.h"

#include <map>

#include "app/cluster_reduce.h"
#include "app/job_identity.h"
#include "collectors/ingest.h"
#include "collectors/kineto/trace_metadata.h"
#include "store/file_bytes.h"
#include "store/pg/pg_catalog.h"
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
