// The reduce of a cluster run fanned out by rank (docs/scale-out.md, "Cluster runs"): each rank
// was analysed on its own (possibly by another daemon) and published as a rank extract
// (store/run_extract.h); the reduce assembles the cluster run from the extracts alone, without
// any event, and evaluates the packs on it. Its per-rank tables are the ranks' rows, the tables
// computed across ranks are computed again from them, and its findings are those of a
// one-machine analysis of the whole folder (tests/integration/cluster_reduce_test.cpp).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "app/analysis.h"
#include "app/knowledge.h"
#include "app/result.h"
#include "store/database.h"
#include "store/run_writer.h"

namespace perfsage::app {

struct RankExtract {
  int64_t rank = 0;
  std::string extract;  // store::extract_run of the rank's own run
};

struct ClusterParts {
  store::RunHeader header;         // the cluster run's job, inputs, fingerprint and time
  std::vector<RankExtract> ranks;  // one per rank analysed
  std::vector<int64_t> missing;    // ranks whose rank job failed
};

// Tables with a rank column whose rows are computed across ranks: the reduce computes them again
// from the ranks' rows instead of copying them.
const std::set<std::string>& tables_computed_across_ranks();

// The cluster run's id in `db`. Refused, with nothing stored, when a rank is missing (never a
// silently partial cluster), when an extract is damaged or holds another rank, and where the
// reduce cannot compute a table from rank rows (model graphs, msprof-analyze's cluster files),
// naming what stands in the way.
Result<int64_t> reduce_cluster(store::Database& db, const ClusterParts& parts,
                               const Knowledge& knowledge, const Limits& limits);

}  // namespace perfsage::app
