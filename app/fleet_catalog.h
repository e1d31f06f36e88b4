// Shared mode's catalog (docs/scale-out.md, "The catalog"), as the daemon uses it: when a job
// ends its run is published to PostgreSQL with the job's completion; every daemon keeps a local
// replica of all published runs (a store file of the same schema, `<store>.catalog`) that its
// API, pages and compare read; each daemon publishes its packs' status.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/store_types.h"
#include "perfsage/v1/api.pb.h"

namespace perfsage::app {

// Where a catalog run was analysed: the daemon (instance) and its local store's run id.
struct CatalogOrigin {
  std::string instance;
  int64_t local_run_id = 0;
};

class FleetCatalog {
 public:
  // Connects (applying the schema migrations) and opens the replica at `replica` (created when
  // missing). Throws app::StoreError naming the server, never the password.
  FleetCatalog(const std::string& uri, std::string instance, std::filesystem::path replica);
  ~FleetCatalog();

  // Publishes local run `local_run_id` of the store at `store` and marks job `job_id` done
  // with its catalog id, in one transaction, when `owner` still holds the job. Returns the
  // catalog id; nullopt when the lease was lost (nothing written: the new owner's result
  // stands). Throws app::StoreError when the database is away (the caller retries).
  std::optional<int64_t> publish_job_run(int64_t job_id, const std::string& owner,
                                         const std::filesystem::path& store, int64_t local_run_id,
                                         const std::string& now);
  // Keeps the extract in file `extract` (app/cluster_jobs.h, analyze_rank), the result of rank
  // job `job_id`, for the job's reduce (never listed among the fleet's runs) and marks the job
  // done, when `owner` still holds it; false when the lease was lost. Throws app::StoreError
  // when the database is away or the file cannot be read.
  bool keep_rank_extract(int64_t job_id, const std::string& owner,
                         const std::filesystem::path& extract, const std::string& now);
  // Publishes a local run again after its actions changed; its catalog id, nullopt when it was
  // never published.
  std::optional<int64_t> republish(const std::filesystem::path& store, int64_t local_run_id);
  // Imports into the replica what was published since it last looked; returns how many runs.
  // A damaged publication is skipped with a warning in `problems`, never blocking the others.
  int sync(std::vector<std::string>* problems = nullptr);
  // Where catalog run `id` was analysed (actions need its facts, which stay on that daemon).
  std::optional<CatalogOrigin> origin_of(int64_t id);
  // The catalog id of this daemon's local run, when published.
  std::optional<int64_t> published(int64_t local_run_id);
  // Actions: plans and applies have the replica's ids in the API. Where a replica id of `kind`
  // ("action_plans", "action_applies") came from, and the replica's id of one of this daemon's.
  std::optional<CatalogOrigin> local_origin(const std::string& kind, int64_t replica_id);
  std::optional<int64_t> replica_id(const std::string& kind, int64_t local_id);
  // Publishes again the local run a local plan or apply (`kind` as above) belongs to, and
  // imports the change at once, so that this daemon's API shows it.
  void republish_run_of(const std::filesystem::path& store, const std::string& kind,
                        int64_t local_id);
  void publish_packs(uint64_t generation, const std::vector<perfsage::v1::PackStatus>& packs);
  perfsage::v1::FleetStatus fleet();
  const std::filesystem::path& replica_path() const;
  const std::string& instance() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Opens (creating when missing) a catalog replica at `path`, with every derived table a run's
// view reads. When a table's declared shape changed (an upgrade), the replica imports every
// run again at its next sync.
std::unique_ptr<store::Database> open_catalog_replica(const std::filesystem::path& path);

// The replica's file for a daemon's store.
std::filesystem::path catalog_replica_path(const std::filesystem::path& store);

}  // namespace perfsage::app
