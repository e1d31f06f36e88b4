// The shared mode's catalog in PostgreSQL (docs/scale-out.md, "The catalog"): every analysed
// run's extract (store/run_extract.h) under a fleet-wide run id, its findings typed for queries
// across runs, and each daemon's packs. A run is published in the same transaction that marks
// its job done, and only by the daemon that still holds the job's lease: a daemon that lost it
// (paused past its lease, cut off) publishes nothing, so every run is in the catalog once.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "store/pg/pg_connection.h"
#include "store/run_extract.h"

namespace perfsage::store::pg {

// The channel a publication notifies (its payload: the revision).
inline constexpr const char* kCatalogChannel = "perfsage_catalog";

struct CatalogFinding {
  int64_t ord = 0;
  std::string id, pack, rule, severity;
  std::optional<double> gain_us;
};

struct CatalogRun {
  RunOrigin origin;
  std::string job, status, created;
  std::vector<std::string> inputs;
  int store_schema = 0;
  std::string extract;
  std::vector<CatalogFinding> findings;
};

// One publication, as a replica reads it.
struct CatalogEntry {
  int64_t id = 0, revision = 0;
  RunOrigin origin;
  std::string extract;
};

// A rank job of a cluster run fanned out by rank, as its reduce reads it: how the job ended and
// whether its run's extract is kept.
struct RankResult {
  int64_t job_id = 0, rank = 0;
  std::string state, reason;
  bool kept = false;
};

struct DaemonPack {
  std::string instance, pack, status, version, error, updated;
  int64_t generation = 0;
};

class PgCatalog {
 public:
  // Connects and applies the schema migrations. Thread-safe (one connection, serialised).
  explicit PgCatalog(const std::string& uri);

  // Publishes `run` and marks job `job_id` done with its catalog id, in one transaction, when
  // `owner` still holds the job; nullopt (and nothing written) when it does not. A run of the
  // same origin published before (its inputs were analysed already) keeps its id.
  std::optional<int64_t> publish_and_complete(int64_t job_id, const std::string& owner,
                                              const CatalogRun& run, const std::string& now);
  // Keeps rank job `job_id`'s result (its run's extract) for its reduce and marks the job done,
  // in one transaction, when `owner` still holds it; false (nothing written) when it does not.
  // The rank's run is never listed among the catalog's runs.
  bool keep_rank_and_complete(int64_t job_id, const std::string& owner, const std::string& extract,
                              const std::string& now);
  // The rank jobs of reduce job `reduce_id`, by rank.
  std::vector<RankResult> rank_results(int64_t reduce_id);
  // The extract kept for rank job `job_id` (read one at a time: a cluster's extracts together,
  // as text, would be twice their size in memory); nullopt when none is.
  std::optional<std::string> rank_extract(int64_t job_id);
  // Publishes a run again (its actions changed): same id, a new revision. nullopt when the
  // origin was never published.
  std::optional<int64_t> republish(const CatalogRun& run);
  // Publications after `revision`, oldest first.
  std::vector<CatalogEntry> since(int64_t revision, int limit);
  std::optional<RunOrigin> origin_of(int64_t id);
  std::optional<int64_t> id_of(const RunOrigin& origin);
  // Replaces `instance`'s pack list.
  void set_packs(const std::string& instance, int64_t generation,
                 const std::vector<DaemonPack>& packs);
  std::vector<DaemonPack> packs();
  const std::string& where() const { return c_.where(); }

 private:
  int64_t upsert(const CatalogRun& run);
  std::mutex mutex_;
  Connection c_;
};

}  // namespace perfsage::store::pg
