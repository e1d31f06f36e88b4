// Cluster runs fanned out by rank across the daemons that share one queue (docs/scale-out.md,
// "Cluster runs"): which inputs fan out, and the reduce job that assembles the cluster run from
// its rank jobs' results (app/cluster_reduce.h) once they have all ended.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/analysis.h"
#include "app/job_queue.h"
#include "app/knowledge.h"
#include "app/result.h"
#include "store/database.h"

namespace perfsage::app {

// The ranks of inputs that fan out by rank: two ranks or more, every file a Kineto trace whose
// rank its distributedInfo (before the events) or, without one, its file name gives (the rank's
// inputs: its traces), or an Ascend profiler file in a rank's framework-profiler folder
// (`*_ascend_pt`; the rank's inputs: its folders); a file no collector reads only inside such a
// folder. nullopt when they do not: they are analysed as one job (one rank, model graphs and
// fusion results, msprof-analyze cluster files, msprof's PROF_* layout, a stray file, a trace
// whose rank cannot be told up front). Reads the first bytes of every file; an input it cannot
// read is left to the analysis to report (nullopt).
std::optional<std::vector<store::RankInputs>> plan_rank_jobs(
    const std::vector<std::filesystem::path>& inputs);

// A rank job's analysis: the rank alone, into a disposable store in a new folder
// `<spool>/job-<id>-XXXXXX` (never the daemon's store: a rank's events serve only its extract, and
// would grow the store by every rank of every cluster), its packs left to the reduce; the run's
// extract is written to `<folder>/extract` and the store removed. The folder; the caller removes
// it (remove_rank_folders). An input error when nothing in the rank was recognised.
Result<std::filesystem::path> analyze_rank(const AnalysisRequest& request,
                                           const std::filesystem::path& spool, int64_t job_id,
                                           const Knowledge& knowledge, const Limits& limits);

// The folder rank jobs analyse in, for a daemon's store.
std::filesystem::path rank_spool(const std::filesystem::path& store);
// Removes rank job `job_id`'s folders from `spool` (all of them when `job_id` is 0: at start,
// what workers of an earlier process left). Never throws.
void remove_rank_folders(const std::filesystem::path& spool, int64_t job_id);

struct ReduceRequest {
  std::string postgres;  // the shared database, where the rank jobs' results wait
  int64_t job_id = 0;    // the reduce job
  std::string job;       // its name
  std::vector<std::filesystem::path> inputs;  // the cluster's inputs, as the job names them
  Clock clock = system_clock_iso8601;
};

// Assembles the cluster run of reduce job `req.job_id` in `db` from its rank jobs' results and
// evaluates the packs on it; the run's id. A rank job that did not end done fails the reduce
// naming each missing rank and why (never a partial cluster run). The run replaces a stored
// run of the same inputs, as a fresh analysis does, and applied actions of the job whose next
// run it is are judged on it.
Result<int64_t> reduce_cluster_job(store::Database& db, const ReduceRequest& req,
                                   const Knowledge& knowledge, const Limits& limits);

}  // namespace perfsage::app
