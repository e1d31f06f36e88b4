#include "store/results.h"

#include "store/bind.h"
#include "store/json_text.h"

namespace perfsage::store {

void save_results(Database& db, int64_t run_id, const std::vector<PackResult>& packs,
                  const std::vector<Recommendation>& recs) {
  Transaction txn(db);
  db.prepare("DELETE FROM recommendations WHERE run_id=?1").bind(1, run_id).run();
  db.prepare("DELETE FROM pack_results WHERE run_id=?1").bind(1, run_id).run();
  auto pst = db.prepare("INSERT INTO pack_results VALUES(?1,?2,?3,?4,?5,?6,?7)");
  for (const auto& p : packs) {
    insert(pst, run_id, p.pack, p.version, p.status, p.fired, p.error, p.elapsed_ms);
  }
  auto rst = db.prepare(
      "INSERT INTO recommendations(run_id, pack, pack_version, rule, severity, category, title, "
      "message, subjects, evidence, gain_us, gain_share, action, refs) "
      "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)");
  for (const auto& r : recs) {
    insert(rst, run_id, r.pack, r.pack_version, r.rule, r.severity, r.category, r.title, r.message,
           json_string_array(r.subjects), r.evidence_json, r.gain_us, r.gain_share, r.action_json,
           json_string_array(r.references));
  }
  txn.commit();
}

std::vector<Recommendation> load_recommendations(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT pack, pack_version, rule, severity, coalesce(category,''), title, message, subjects, "
      "evidence, gain_us, gain_share, coalesce(action,''), coalesce(refs,'[]') "
      "FROM recommendations WHERE run_id=?1 ORDER BY id");
  st.bind(1, run_id);
  std::vector<Recommendation> out;
  while (st.step()) {
    Recommendation r;
    r.pack = st.text(0);
    r.pack_version = st.text(1);
    r.rule = st.text(2);
    r.severity = st.text(3);
    r.category = st.text(4);
    r.title = st.text(5);
    r.message = st.text(6);
    r.subjects = parse_json_string_array(st.text(7));
    r.evidence_json = st.text(8);
    if (!st.is_null(9)) r.gain_us = st.real(9);
    if (!st.is_null(10)) r.gain_share = st.real(10);
    r.action_json = st.text(11);
    r.references = parse_json_string_array(st.text(12));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<PackResult> load_pack_results(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT pack, coalesce(version,''), status, fired, coalesce(error,''), "
      "coalesce(elapsed_ms,0) FROM pack_results WHERE run_id=?1 ORDER BY rowid");
  st.bind(1, run_id);
  std::vector<PackResult> out;
  while (st.step()) {
    out.push_back({st.text(0), st.text(1), st.text(2), st.int64(3), st.text(4), st.real(5)});
  }
  return out;
}

}  // namespace perfsage::store
