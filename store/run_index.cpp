#include "store/run_index.h"

#include <algorithm>

#include "store/bind.h"
#include "store/json_text.h"

namespace perfsage::store {
namespace {

constexpr const char* kRunRowColumns =
    "SELECT r.id, coalesce(r.job,''), r.created, r.status, r.inputs, coalesce(r.framework,''), "
    "coalesce(r.device,''), coalesce(r.chip,''), coalesce(r.steps,0), "
    "coalesce(r.step_time_us,0) FROM runs r ";

RunRow read_row(Statement& st) {
  RunRow r;
  r.id = st.int64(0);
  r.job = st.text(1);
  r.created = st.text(2);
  r.status = st.text(3);
  r.inputs = parse_json_string_array(st.text(4));
  r.framework = st.text(5);
  r.device = st.text(6);
  r.chip = st.text(7);
  r.steps = st.int64(8);
  r.step_time_us = st.real(9);
  return r;
}

void add_finding_counts(Database& db, std::vector<RunRow>& rows) {
  auto st = db.prepare(
      "SELECT severity, count(*), max(gain_share) FROM findings WHERE run_id=?1 GROUP BY "
      "severity");
  for (auto& r : rows) {
    st.bind(1, r.id);
    while (st.step()) {
      r.findings_by_severity[static_cast<int>(st.int64(0))] = st.int64(1);
      r.top_gain_share = std::max(r.top_gain_share, st.real(2));
    }
    st.reset();
  }
}

FindingRow read_finding(Statement& st) {
  FindingRow f;
  f.run_id = st.int64(0);
  f.created = st.text(1);
  f.id = st.text(2);
  f.pack = st.text(3);
  f.rule = st.text(4);
  f.severity = static_cast<int>(st.int64(5));
  f.gain_us = st.real(6);
  f.gain_share = st.real(7);
  auto blob = st.blob_view(8);
  f.payload.assign(blob.data(), blob.size());
  return f;
}

constexpr const char* kFindingColumns =
    "SELECT f.run_id, r.created, f.id, f.pack, f.rule, f.severity, f.gain_us, f.gain_share, "
    "f.payload FROM findings f JOIN runs r ON r.id=f.run_id ";

}  // namespace

std::vector<RunRow> list_run_rows(Database& db, const RunFilter& f) {
  auto st = db.prepare(std::string(kRunRowColumns) +
                       "WHERE (?1='' OR r.job=?1) AND (?2='' OR r.created>=?2) AND "
                       "(?3='' OR r.created<=?3) AND (?4='' OR r.status=?4) AND "
                       "(?5=0 OR r.id<?5) ORDER BY r.id DESC LIMIT ?6");
  bind_all(st, f.job, f.since, f.until, f.status, f.before_id, static_cast<int64_t>(f.limit));
  std::vector<RunRow> out;
  while (st.step()) out.push_back(read_row(st));
  add_finding_counts(db, out);
  return out;
}

std::vector<RunRow> run_rows(Database& db, const std::vector<int64_t>& ids) {
  auto st = db.prepare(std::string(kRunRowColumns) + "WHERE r.id=?1");
  std::vector<RunRow> out;
  for (int64_t id : ids) {
    st.bind(1, id);
    if (st.step()) out.push_back(read_row(st));
    st.reset();
  }
  add_finding_counts(db, out);
  return out;
}

std::vector<JobRow> list_jobs(Database& db) {
  auto st = db.prepare(
      "SELECT coalesce(job,''), count(*), max(created) FROM runs GROUP BY job ORDER BY max(id) "
      "DESC");
  std::vector<JobRow> out;
  while (st.step()) out.push_back({st.text(0), st.int64(1), st.text(2)});
  return out;
}

std::vector<FindingRow> job_finding_rows(Database& db, const std::string& job, int last_runs,
                                         std::vector<int64_t>& run_ids) {
  run_ids.clear();
  auto runs = db.prepare("SELECT id FROM runs WHERE job=?1 ORDER BY id DESC LIMIT ?2");
  bind_all(runs, job, static_cast<int64_t>(last_runs));
  while (runs.step()) run_ids.push_back(runs.int64(0));
  std::reverse(run_ids.begin(), run_ids.end());
  std::vector<FindingRow> out;
  auto st = db.prepare(std::string(kFindingColumns) + "WHERE f.run_id=?1 ORDER BY f.ord");
  for (int64_t id : run_ids) {
    st.bind(1, id);
    while (st.step()) out.push_back(read_finding(st));
    st.reset();
  }
  return out;
}

std::vector<FindingRow> run_finding_rows(Database& db, int64_t run_id) {
  auto st = db.prepare(std::string(kFindingColumns) + "WHERE f.run_id=?1 ORDER BY f.ord");
  st.bind(1, run_id);
  std::vector<FindingRow> out;
  while (st.step()) out.push_back(read_finding(st));
  return out;
}

}  // namespace perfsage::store
