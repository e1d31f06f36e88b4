#include "store/run_registry.h"

#include <string>
#include <vector>

#include "store/bind.h"
#include "store/json_text.h"

namespace perfsage::store {
namespace {
constexpr const char* kRunColumns =
    "SELECT id, coalesce(job,''), inputs, coalesce(kind,''), coalesce(framework,''), "
    "coalesce(device,''), coalesce(chip,''), fingerprint, created, status, coalesce(ranks,0), "
    "coalesce(steps,0), coalesce(step_time_us,0), coalesce(device_time_us,0) FROM runs ";

RunRecord read_run(Statement& st) {
  RunRecord s;
  s.id = st.int64(0);
  s.job = st.text(1);
  s.inputs = parse_json_string_array(st.text(2));
  s.kind = st.text(3);
  s.framework = st.text(4);
  s.device = st.text(5);
  s.chip = st.text(6);
  s.fingerprint = st.text(7);
  s.created = st.text(8);
  s.status = st.text(9);
  s.ranks = st.int64(10);
  s.steps = st.int64(11);
  s.step_time_us = st.real(12);
  s.device_time_us = st.real(13);
  return s;
}
}  // namespace

std::optional<int64_t> find_run_by_fingerprint(Database& db, const std::string& fingerprint) {
  auto st = db.prepare(
      "SELECT id FROM runs WHERE fingerprint=?1 AND status!='ingesting' ORDER BY id DESC LIMIT 1");
  st.bind(1, fingerprint);
  if (st.step()) return st.int64(0);
  return std::nullopt;
}

std::optional<RunRecord> load_run(Database& db, int64_t run_id) {
  auto st = db.prepare(std::string(kRunColumns) + "WHERE id=?1");
  st.bind(1, run_id);
  if (!st.step()) return std::nullopt;
  return read_run(st);
}

std::vector<RunRecord> list_runs(Database& db, const std::string& job) {
  auto st = db.prepare(std::string(kRunColumns) + "WHERE ?1='' OR job=?1 ORDER BY id");
  st.bind(1, job);
  std::vector<RunRecord> out;
  while (st.step()) out.push_back(read_run(st));
  return out;
}

void update_run_totals(Database& db, const RunRecord& s) {
  auto st = db.prepare(
      "UPDATE runs SET kind=?2, framework=?3, device=?4, chip=?5, ranks=?6, steps=?7, "
      "step_time_us=?8, device_time_us=?9 WHERE id=?1");
  insert(st, s.id, s.kind, s.framework, s.device, s.chip, s.ranks, s.steps, s.step_time_us,
         s.device_time_us);
}

void set_run_status(Database& db, int64_t run_id, const std::string& status) {
  auto st = db.prepare("UPDATE runs SET status=?2 WHERE id=?1");
  insert(st, run_id, status);
}

std::vector<IngestFile> load_ingest_files(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT path, collector, records, skipped, warnings FROM ingest_files WHERE run_id=?1 "
      "ORDER BY rowid");
  st.bind(1, run_id);
  std::vector<IngestFile> out;
  while (st.step()) {
    IngestFile f;
    f.path = st.text(0);
    f.collector = st.text(1);
    f.records = st.int64(2);
    f.skipped = st.int64(3);
    f.warnings = parse_json_string_array(st.text(4));
    out.push_back(std::move(f));
  }
  return out;
}

void delete_run(Database& db, int64_t run_id) {
  Transaction txn(db);
  // Every table with a run_id column, so that a table added later cannot be forgotten here.
  std::vector<std::string> tables;
  {
    auto st = db.prepare(
        "SELECT m.name FROM sqlite_schema m, pragma_table_info(m.name) c "
        "WHERE m.type = 'table' AND c.name = 'run_id' ORDER BY m.name");
    while (st.step()) tables.push_back(st.text(0));
  }
  for (const auto& table : tables) {
    db.prepare("DELETE FROM \"" + table + "\" WHERE run_id=?1").bind(1, run_id).run();
  }
  db.prepare("DELETE FROM runs WHERE id=?1").bind(1, run_id).run();
  txn.commit();
}

}  // namespace perfsage::store
