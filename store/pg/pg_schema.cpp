#include "store/pg/pg_schema.h"

#include <array>
#include <string>

namespace perfsage::store::pg {
namespace {

// Each step once, in order; never edited after release (a change is a new step).
constexpr std::array<const char*, 3> kSteps = {
    // 1: the job queue (store/job_queue.h). The same columns as the SQLite queue; the lease
    // is the database clock's epoch milliseconds; done_by names the daemon whose local store
    // holds the job's run (run ids are that store's). Pending jobs of the same inputs and signature
    // are one job (the unique index, which concurrent enqueues from several daemons meet).
    R"sql(
CREATE TABLE jobs(
  id BIGSERIAL PRIMARY KEY, job TEXT NOT NULL, inputs TEXT NOT NULL, source TEXT NOT NULL,
  signature TEXT NOT NULL, lenient BOOLEAN NOT NULL DEFAULT false, state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0, crashes INTEGER NOT NULL DEFAULT 0, reason TEXT,
  run_id BIGINT, owner TEXT, lease_until_ms BIGINT, submitted TEXT NOT NULL, started TEXT,
  finished TEXT, done_by TEXT);
CREATE INDEX jobs_state ON jobs(state, id);
CREATE INDEX jobs_inputs ON jobs(md5(inputs), signature, id);
CREATE INDEX jobs_run ON jobs(run_id, done_by);
CREATE UNIQUE INDEX jobs_pending ON jobs(md5(inputs), signature)
  WHERE state IN ('queued', 'running');
)sql",
    // 2: the catalog (store/pg/pg_catalog.h): every analysed run's extract under a fleet-wide
    // id, with the daemon and local run it came from; a revision from one sequence orders
    // publications for the daemons' replicas; the findings typed for queries across runs; each
    // daemon's packs with their status and generation.
    R"sql(
CREATE SEQUENCE catalog_revision;
CREATE TABLE catalog_runs(
  id BIGSERIAL PRIMARY KEY, instance TEXT NOT NULL, local_run_id BIGINT NOT NULL,
  job TEXT NOT NULL, status TEXT NOT NULL, created TEXT NOT NULL, inputs TEXT NOT NULL,
  store_schema INTEGER NOT NULL, extract BYTEA NOT NULL,
  revision BIGINT NOT NULL DEFAULT nextval('catalog_revision'),
  published TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE(instance, local_run_id));
CREATE INDEX catalog_runs_revision ON catalog_runs(revision);
CREATE INDEX catalog_runs_job ON catalog_runs(job, id);
CREATE TABLE catalog_findings(
  run_id BIGINT NOT NULL REFERENCES catalog_runs(id) ON DELETE CASCADE, ord INTEGER NOT NULL,
  id TEXT NOT NULL, pack TEXT NOT NULL, rule TEXT NOT NULL, severity TEXT NOT NULL,
  gain_us DOUBLE PRECISION, PRIMARY KEY(run_id, ord));
CREATE TABLE daemon_packs(
  instance TEXT NOT NULL, pack TEXT NOT NULL, generation BIGINT NOT NULL, status TEXT NOT NULL,
  version TEXT NOT NULL, error TEXT NOT NULL, updated TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY(instance, pack));
)sql",
    // 3: cluster runs fanned out by rank (docs/scale-out.md, "Cluster runs"): a job's kind, a
    // rank job's reduce job and rank; a rank job's result (its run's extract) waits for the
    // reduce here, never listed among the catalog's runs, and goes with its job.
    R"sql(
ALTER TABLE jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'run',
  ADD COLUMN parent BIGINT REFERENCES jobs(id) ON DELETE CASCADE, ADD COLUMN rank BIGINT;
CREATE INDEX jobs_parent ON jobs(parent, state) WHERE parent IS NOT NULL;
CREATE TABLE catalog_rank_extracts(
  job_id BIGINT PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE, extract BYTEA NOT NULL,
  published TIMESTAMPTZ NOT NULL DEFAULT now());
)sql",
};

// pg_advisory_xact_lock key: "perfsage" in ASCII.
constexpr const char* kLockKey = "7018986183473801829";

}  // namespace

int schema_version() {
  return static_cast<int>(kSteps.size());
}

int migrate(Connection& c) {
  Transaction txn(c);
  c.exec("SELECT pg_advisory_xact_lock($1)", {param(kLockKey)});
  // A database already at this version needs no DDL, so daemons may run as a role that only
  // reads and writes rows (docs/scale-out.md, "Roles"); `perfsaged --migrate` as the schema's
  // owner brings it up to date.
  if (c.exec("SELECT to_regclass('perfsage_schema') IS NULL").text(0, 0) == "t") {
    try {
      c.exec("CREATE TABLE perfsage_schema(version INTEGER NOT NULL)");
    } catch (const PgError& e) {
      throw PgError(std::string("schema migration (the version table) failed; migrations need a "
                                "role that may create tables (perfsaged --migrate): ") +
                    e.what());
    }
  }
  auto r = c.exec("SELECT max(version) FROM perfsage_schema");
  int version = r.is_null(0, 0) ? 0 : static_cast<int>(r.int64(0, 0));
  if (version > schema_version()) {
    throw PgError("PostgreSQL " + c.where() + ": its perfsage schema is version " +
                  std::to_string(version) + ", newer than this perfsaged knows (" +
                  std::to_string(schema_version()) + "); upgrade perfsaged");
  }
  for (int v = version + 1; v <= schema_version(); ++v) {
    try {
      c.exec_script(kSteps[static_cast<size_t>(v - 1)]);
    } catch (const PgError& e) {
      throw PgError("schema migration " + std::to_string(v) + " failed: " + e.what());
    }
    c.exec("INSERT INTO perfsage_schema(version) VALUES($1)", {param(int64_t{v})});
  }
  txn.commit();
  return schema_version();
}

}  // namespace perfsage::store::pg
