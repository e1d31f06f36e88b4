#include "store/results.h"

#include "store/bind.h"

namespace perfsage::store {

void save_results(Database& db, int64_t run_id, const std::vector<PackResult>& packs,
                  const std::vector<StoredFinding>& findings) {
  Transaction txn(db);
  db.prepare("DELETE FROM findings WHERE run_id=?1").bind(1, run_id).run();
  db.prepare("DELETE FROM pack_results WHERE run_id=?1").bind(1, run_id).run();
  auto pst = db.prepare(
      "INSERT INTO pack_results(run_id, pack, version, status, fired, error, elapsed_ms, source, "
      "isolated) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)");
  for (const auto& p : packs)
    insert(pst, run_id, p.pack, p.version, p.status, p.fired, p.error, p.elapsed_ms, p.source,
           static_cast<int64_t>(p.isolated));
  auto fst = db.prepare(
      "INSERT INTO findings(run_id, ord, id, pack, rule, severity, gain_us, gain_share, payload) "
      "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)");
  int64_t ord = 0;
  for (const auto& f : findings) {
    fst.reset();
    fst.bind(1, run_id).bind(2, ord++).bind(3, f.id).bind(4, f.pack).bind(5, f.rule);
    fst.bind(6, static_cast<int64_t>(f.severity)).bind(7, f.gain_us).bind(8, f.gain_share);
    fst.bind_blob_static(9, f.payload);
    fst.run();
  }
  txn.commit();
}

std::vector<StoredFinding> load_findings(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT id, pack, rule, severity, gain_us, gain_share, payload FROM findings "
      "WHERE run_id=?1 ORDER BY ord");
  st.bind(1, run_id);
  std::vector<StoredFinding> out;
  while (st.step()) {
    StoredFinding f;
    f.id = st.text(0);
    f.pack = st.text(1);
    f.rule = st.text(2);
    f.severity = static_cast<int>(st.int64(3));
    f.gain_us = st.real(4);
    f.gain_share = st.real(5);
    f.payload = std::string(st.blob_view(6));
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<PackResult> load_pack_results(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT pack, coalesce(version,''), status, fired, coalesce(error,''), "
      "coalesce(elapsed_ms,0), coalesce(source,''), coalesce(isolated,0) FROM pack_results "
      "WHERE run_id=?1 ORDER BY rowid");
  st.bind(1, run_id);
  std::vector<PackResult> out;
  while (st.step()) {
    out.push_back({st.text(0), st.text(1), st.text(2), st.int64(3), st.text(4), st.real(5),
                   st.text(6), st.int64(7) != 0});
  }
  return out;
}

}  // namespace perfsage::store
