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

// The ranks of inputs that fan out by rank, each rank's files together: two ranks or more, every
// file a Kineto trace whose rank its distributedInfo (before the events) or, without one, its
// file name gives. nullopt when they do not: they are analysed as one job (one rank, Ascend
// output, model graphs, files nothing recognises, a trace whose rank cannot be told up front).
// Reads the first bytes of every file; an input it cannot read is left to the analysis to report
// (nullopt).
std::optional<std::vector<store::RankInputs>> plan_rank_jobs(
    const std::vector<std::filesystem::path>& inputs);

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
// run of the same inputs, as a fresh analysis does.
Result<int64_t> reduce_cluster_job(store::Database& db, const ReduceRequest& req,
                                   const Knowledge& knowledge, const Limits& limits);

}  // namespace perfsage::app
