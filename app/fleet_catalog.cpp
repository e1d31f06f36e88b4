#include "app/fleet_catalog.h"

#include <map>
#include <mutex>

#include "analyzers/core/analyzer.h"
#include "app/front_end_names.h"
#include "store/database.h"
#include "store/derived_tables.h"
#include "store/file_bytes.h"
#include "store/pg/pg_catalog.h"
#include "store/results.h"
#include "store/run_extract.h"
#include "store/run_registry.h"

namespace perfsage::app {
namespace fs = std::filesystem;
namespace pg = store::pg;

namespace {

// How many publications one sync reads at a time.
constexpr int kSyncBatch = 64;

int64_t replica_mark(store::Database& replica) {
  replica.exec("CREATE TABLE IF NOT EXISTS catalog_sync(revision INTEGER NOT NULL)");
  auto st = replica.prepare("SELECT max(revision) FROM catalog_sync");
  return st.step() && !st.is_null(0) ? st.int64(0) : 0;
}

void set_mark(store::Database& replica, int64_t revision) {
  replica.exec("DELETE FROM catalog_sync");
  auto st = replica.prepare("INSERT INTO catalog_sync(revision) VALUES(?1)");
  st.bind(1, revision);
  st.run();
}

pg::CatalogRun catalog_run(store::Database& db, const std::string& instance, int64_t local_id) {
  auto run = store::load_run(db, local_id);
  if (!run) throw store::StoreError("no run " + std::to_string(local_id) + " in " + db.path());
  pg::CatalogRun out;
  out.origin = {instance, local_id};
  out.job = run->job;
  out.status = run->status;
  out.created = run->created;
  out.inputs = run->inputs;
  out.store_schema = db.schema_version();
  out.extract = store::extract_run(db, local_id);
  int64_t ord = 0;
  for (const auto& f : store::load_findings(db, local_id)) {
    pg::CatalogFinding c;
    c.ord = ord++;
    c.id = f.id;
    c.pack = f.pack;
    c.rule = f.rule;
    c.severity = severity_name(static_cast<perfsage::v1::Severity>(f.severity));
    c.gain_us = f.gain_us;
    out.findings.push_back(std::move(c));
  }
  return out;
}

}  // namespace

struct FleetCatalog::Impl {
  Impl(const std::string& uri, std::string inst, fs::path path)
      : catalog(uri),
        instance(std::move(inst)),
        replica_path(std::move(path)),
        replica(open_catalog_replica(replica_path)) {}
  pg::PgCatalog catalog;
  std::string instance;
  fs::path replica_path;
  std::mutex replica_mu;  // the replica's writer connection: one import or lookup at a time
  std::unique_ptr<store::Database> replica;
};

std::unique_ptr<store::Database> open_catalog_replica(const fs::path& path) {
  auto db = std::make_unique<store::Database>(path.string());
  replica_mark(*db);
  if (!store::ensure_derived_tables(*db, analyzers::derived_tables()).empty()) set_mark(*db, 0);
  return db;
}

fs::path catalog_replica_path(const fs::path& store) {
  return fs::path(store.string() + ".catalog");
}

FleetCatalog::FleetCatalog(const std::string& uri, std::string instance, fs::path replica)
    : impl_(std::make_unique<Impl>(uri, std::move(instance), std::move(replica))) {}

FleetCatalog::~FleetCatalog() = default;

const fs::path& FleetCatalog::replica_path() const {
  return impl_->replica_path;
}

const std::string& FleetCatalog::instance() const {
  return impl_->instance;
}

std::optional<int64_t> FleetCatalog::publish_job_run(int64_t job_id, const std::string& owner,
                                                     const fs::path& store, int64_t local_run_id,
                                                     const std::string& now) {
  store::Database db(store.string());
  auto run = catalog_run(db, impl_->instance, local_run_id);
  return impl_->catalog.publish_and_complete(job_id, owner, run, now);
}

bool FleetCatalog::keep_rank_extract(int64_t job_id, const std::string& owner,
                                     const fs::path& extract, const std::string& now) {
  std::string bytes;
  try {
    bytes = store::read_file(extract);
  } catch (const std::exception& e) {
    throw store::StoreError("rank job " + std::to_string(job_id) + ": " + e.what());
  }
  return impl_->catalog.keep_rank_and_complete(job_id, owner, bytes, now);
}

std::optional<int64_t> FleetCatalog::republish(const fs::path& store, int64_t local_run_id) {
  store::Database db(store.string());
  return impl_->catalog.republish(catalog_run(db, impl_->instance, local_run_id));
}

int FleetCatalog::sync(std::vector<std::string>* problems) {
  std::lock_guard lock(impl_->replica_mu);
  store::Database& replica = *impl_->replica;
  int64_t mark = replica_mark(replica);
  int imported = 0;
  for (;;) {
    auto batch = impl_->catalog.since(mark, kSyncBatch);
    for (const auto& e : batch) {
      try {
        store::import_run(replica, e.id, e.origin, e.extract);
        ++imported;
      } catch (const store::StoreError& err) {
        if (problems)
          problems->push_back("catalog run " + std::to_string(e.id) + " (from " +
                              e.origin.instance + "): " + err.what() + "; skipped");
      }
      mark = e.revision;
      set_mark(replica, mark);
    }
    if (batch.size() < static_cast<size_t>(kSyncBatch)) break;
  }
  return imported;
}

std::optional<CatalogOrigin> FleetCatalog::origin_of(int64_t id) {
  auto o = impl_->catalog.origin_of(id);
  if (!o) return std::nullopt;
  return CatalogOrigin{o->instance, o->local_run_id};
}

std::optional<int64_t> FleetCatalog::published(int64_t local_run_id) {
  return impl_->catalog.id_of({impl_->instance, local_run_id});
}

std::optional<CatalogOrigin> FleetCatalog::local_origin(const std::string& kind,
                                                        int64_t replica_id) {
  std::lock_guard lock(impl_->replica_mu);
  auto o = store::origin_of_imported(*impl_->replica, kind, replica_id);
  if (!o) return std::nullopt;
  return CatalogOrigin{o->instance, o->local_run_id};
}

std::optional<int64_t> FleetCatalog::replica_id(const std::string& kind, int64_t local_id) {
  std::lock_guard lock(impl_->replica_mu);
  return store::imported_id(*impl_->replica, kind, impl_->instance, local_id);
}

void FleetCatalog::republish_run_of(const fs::path& store, const std::string& kind,
                                    int64_t local_id) {
  int64_t run = local_id;
  {
    store::Database db(store.string());
    const std::string sql =
        kind == "action_plans" ? "SELECT run_id FROM action_plans WHERE id = ?1"
        : kind == "action_applies"
            ? "SELECT p.run_id FROM action_applies a JOIN action_plans p ON p.id = a.plan_id "
              "WHERE a.id = ?1"
            : "SELECT ?1";
    auto st = db.prepare(sql);
    st.bind(1, local_id);
    if (!st.step()) throw store::StoreError("no " + kind + " " + std::to_string(local_id));
    run = st.int64(0);
  }
  republish(store, run);
  sync();
}

void FleetCatalog::publish_packs(uint64_t generation,
                                 const std::vector<perfsage::v1::PackStatus>& packs) {
  std::vector<pg::DaemonPack> rows;
  for (const auto& p : packs) {
    pg::DaemonPack d;
    d.pack = p.name();
    d.status = p.status();
    d.version = p.version();
    d.error = p.error();
    rows.push_back(std::move(d));
  }
  impl_->catalog.set_packs(impl_->instance, static_cast<int64_t>(generation), rows);
}

perfsage::v1::FleetStatus FleetCatalog::fleet() {
  perfsage::v1::FleetStatus out;
  out.set_shared(true);
  std::map<std::string, perfsage::v1::FleetDaemon*> by_instance;
  for (const auto& p : impl_->catalog.packs()) {
    auto*& d = by_instance[p.instance];
    if (!d) {
      d = out.add_daemons();
      d->set_instance(p.instance);
      d->set_generation(static_cast<uint64_t>(p.generation));
      d->set_updated(p.updated);
    }
    auto* s = d->add_packs();
    s->set_name(p.pack);
    s->set_status(p.status);
    s->set_version(p.version);
    s->set_error(p.error);
  }
  return out;
}

}  // namespace perfsage::app
