#include "store/pg/pg_catalog.h"

#include <cstdio>

#include "store/json_text.h"
#include "store/pg/pg_job_queue.h"
#include "store/pg/pg_schema.h"

namespace perfsage::store::pg {
namespace {

// Parameters travel as text: bytes as hex for decode($n, 'hex').
std::string to_hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string from_hex(const std::string& hex) {
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) throw PgError("catalog: an extract's hex text has an odd length");
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = value(hex[2 * i]), lo = value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw PgError("catalog: an extract's hex text is damaged");
    out[i] = static_cast<char>(hi * 16 + lo);
  }
  return out;
}

// pg_advisory_xact_lock key of publications: "psgcatal" in ASCII. Publications hold it to
// their commit, so revisions become visible in their order and a replica reading past a
// revision never misses an earlier one that committed late.
constexpr const char* kPublishLockKey = "8107766945599513196";

Param real_param(const std::optional<double>& v) {
  if (!v) return Param();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", *v);
  return std::string(buf);
}

}  // namespace

PgCatalog::PgCatalog(const std::string& uri) : c_(uri) {
  migrate(c_);
}

int64_t PgCatalog::upsert(const CatalogRun& run) {
  c_.exec("SELECT pg_advisory_xact_lock($1)", {param(kPublishLockKey)});
  auto r = c_.exec(
      "INSERT INTO catalog_runs(instance, local_run_id, job, status, created, inputs, "
      "store_schema, extract) VALUES($1, $2, $3, $4, $5, $6, $7, decode($8, 'hex')) "
      "ON CONFLICT (instance, local_run_id) DO UPDATE SET job = EXCLUDED.job, status = "
      "EXCLUDED.status, created = EXCLUDED.created, inputs = EXCLUDED.inputs, store_schema = "
      "EXCLUDED.store_schema, extract = EXCLUDED.extract, revision = nextval('catalog_revision'), "
      "published = now() RETURNING id, revision",
      {param(run.origin.instance), param(run.origin.local_run_id), param(run.job),
       param(run.status), param(run.created), param(json_string_array(run.inputs)),
       param(int64_t{run.store_schema}), param(to_hex(run.extract))});
  const int64_t id = r.int64(0, 0);
  c_.exec("DELETE FROM catalog_findings WHERE run_id = $1", {param(id)});
  for (const auto& f : run.findings) {
    c_.exec(
        "INSERT INTO catalog_findings(run_id, ord, id, pack, rule, severity, gain_us) "
        "VALUES($1, $2, $3, $4, $5, $6, $7)",
        {param(id), param(f.ord), param(f.id), param(f.pack), param(f.rule), param(f.severity),
         real_param(f.gain_us)});
  }
  c_.exec("SELECT pg_notify($1, $2)", {param(kCatalogChannel), param(r.text(0, 1))});
  return id;
}

std::optional<int64_t> PgCatalog::publish_and_complete(int64_t job_id, const std::string& owner,
                                                       const CatalogRun& run,
                                                       const std::string& now) {
  std::lock_guard lock(mutex_);
  Transaction txn(c_);
  // The job row stays locked to the commit: a reclaim cannot hand it out meanwhile.
  auto held =
      c_.exec("SELECT 1 FROM jobs WHERE id = $1 AND owner = $2 AND state = 'running' FOR UPDATE",
              {param(job_id), param(owner)});
  if (held.rows() == 0) return std::nullopt;
  const int64_t id = upsert(run);
  c_.exec(
      "UPDATE jobs SET state = 'done', run_id = $1, finished = $2, reason = NULL, owner = NULL, "
      "lease_until_ms = NULL, done_by = $3 WHERE id = $4",
      {param(id), param(now), param(run.origin.instance), param(job_id)});
  // A reduce's run is published: its ranks' results have served.
  c_.exec(
      "DELETE FROM catalog_rank_extracts WHERE job_id IN (SELECT id FROM jobs WHERE parent = $1)",
      {param(job_id)});
  txn.commit();
  return id;
}

bool PgCatalog::keep_rank_and_complete(int64_t job_id, const std::string& owner,
                                       const std::string& extract, const std::string& now) {
  std::lock_guard lock(mutex_);
  Transaction txn(c_);
  auto held = c_.exec(
      "SELECT 1 FROM jobs WHERE id = $1 AND owner = $2 AND state = 'running' AND kind = 'rank' "
      "FOR UPDATE",
      {param(job_id), param(owner)});
  if (held.rows() == 0) return false;
  c_.exec("INSERT INTO catalog_rank_extracts(job_id, extract) VALUES($1, decode($2, 'hex'))",
          {param(job_id), param(to_hex(extract))});
  // done_by names the daemon that analysed the rank; the extract carries its schema version.
  c_.exec(
      "UPDATE jobs SET state = 'done', finished = $1, reason = NULL, owner = NULL, "
      "lease_until_ms = NULL, done_by = $2 WHERE id = $3",
      {param(now), param(owner), param(job_id)});
  // The reduce may be claimable now: wake the idle daemons.
  c_.exec("SELECT pg_notify($1, $2)", {param(kJobsChannel), param(job_id)});
  txn.commit();
  return true;
}

std::vector<RankResult> PgCatalog::rank_results(int64_t reduce_id) {
  std::lock_guard lock(mutex_);
  auto r = c_.exec(
      "SELECT j.id, j.rank, j.state, coalesce(j.reason, ''), EXISTS (SELECT 1 FROM "
      "catalog_rank_extracts e WHERE e.job_id = j.id) FROM jobs j WHERE j.parent = $1 ORDER BY "
      "j.rank, j.id",
      {param(reduce_id)});
  std::vector<RankResult> out;
  for (int i = 0; i < r.rows(); ++i) {
    RankResult x;
    x.job_id = r.int64(i, 0);
    x.rank = r.int64(i, 1);
    x.state = r.text(i, 2);
    x.reason = r.text(i, 3);
    x.kept = r.text(i, 4) == "t";
    out.push_back(std::move(x));
  }
  return out;
}

std::optional<std::string> PgCatalog::rank_extract(int64_t job_id) {
  std::lock_guard lock(mutex_);
  auto r = c_.exec("SELECT encode(extract, 'hex') FROM catalog_rank_extracts WHERE job_id = $1",
                   {param(job_id)});
  if (r.rows() == 0) return std::nullopt;
  return from_hex(r.text(0, 0));
}

std::optional<int64_t> PgCatalog::republish(const CatalogRun& run) {
  std::lock_guard lock(mutex_);
  Transaction txn(c_);
  auto known =
      c_.exec("SELECT id FROM catalog_runs WHERE instance = $1 AND local_run_id = $2 FOR UPDATE",
              {param(run.origin.instance), param(run.origin.local_run_id)});
  if (known.rows() == 0) return std::nullopt;
  const int64_t id = upsert(run);
  txn.commit();
  return id;
}

std::vector<CatalogEntry> PgCatalog::since(int64_t revision, int limit) {
  std::lock_guard lock(mutex_);
  // Publications commit in revision order (kPublishLockKey): nothing below the mark can appear.
  auto r = c_.exec(
      "SELECT id, revision, instance, local_run_id, encode(extract, 'hex') FROM catalog_runs "
      "WHERE revision > $1 ORDER BY revision LIMIT $2",
      {param(revision), param(int64_t{limit})});
  std::vector<CatalogEntry> out;
  for (int i = 0; i < r.rows(); ++i) {
    CatalogEntry e;
    e.id = r.int64(i, 0);
    e.revision = r.int64(i, 1);
    e.origin = {r.text(i, 2), r.int64(i, 3)};
    e.extract = from_hex(r.text(i, 4));
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<int64_t> PgCatalog::id_of(const RunOrigin& origin) {
  std::lock_guard lock(mutex_);
  auto r = c_.exec("SELECT id FROM catalog_runs WHERE instance = $1 AND local_run_id = $2",
                   {param(origin.instance), param(origin.local_run_id)});
  if (r.rows() == 0) return std::nullopt;
  return r.int64(0, 0);
}

std::optional<RunOrigin> PgCatalog::origin_of(int64_t id) {
  std::lock_guard lock(mutex_);
  auto r = c_.exec("SELECT instance, local_run_id FROM catalog_runs WHERE id = $1", {param(id)});
  if (r.rows() == 0) return std::nullopt;
  return RunOrigin{r.text(0, 0), r.int64(0, 1)};
}

void PgCatalog::set_packs(const std::string& instance, int64_t generation,
                          const std::vector<DaemonPack>& packs) {
  std::lock_guard lock(mutex_);
  Transaction txn(c_);
  c_.exec("DELETE FROM daemon_packs WHERE instance = $1", {param(instance)});
  for (const auto& p : packs) {
    c_.exec(
        "INSERT INTO daemon_packs(instance, pack, generation, status, version, error) "
        "VALUES($1, $2, $3, $4, $5, $6)",
        {param(instance), param(p.pack), param(generation), param(p.status), param(p.version),
         param(p.error)});
  }
  txn.commit();
}

std::vector<DaemonPack> PgCatalog::packs() {
  std::lock_guard lock(mutex_);
  auto r = c_.exec(
      "SELECT instance, pack, generation, status, version, error, "
      "to_char(updated AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM daemon_packs "
      "ORDER BY instance, pack");
  std::vector<DaemonPack> out;
  for (int i = 0; i < r.rows(); ++i) {
    DaemonPack p;
    p.instance = r.text(i, 0);
    p.pack = r.text(i, 1);
    p.generation = r.int64(i, 2);
    p.status = r.text(i, 3);
    p.version = r.text(i, 4);
    p.error = r.text(i, 5);
    p.updated = r.text(i, 6);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace perfsage::store::pg
