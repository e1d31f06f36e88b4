#include "store/action_store.h"

#include "store/json_text.h"

namespace perfsage::store {
namespace {

// Raises the connection to synchronous=FULL for the audit writes and restores NORMAL (the
// store's setting for run data) afterwards; a :memory: store has nothing to sync.
class FullSync {
 public:
  explicit FullSync(Database& db) : db_(db) { db_.exec("PRAGMA synchronous=FULL"); }
  ~FullSync() {
    try {
      db_.exec("PRAGMA synchronous=NORMAL");
    } catch (...) {  // NOLINT: a destructor must not throw; NORMAL returns at the next open
    }
  }
  FullSync(const FullSync&) = delete;
  FullSync& operator=(const FullSync&) = delete;

 private:
  Database& db_;
};

std::optional<int64_t> opt_int(const Statement& st, int col) {
  return st.is_null(col) ? std::nullopt : std::optional<int64_t>(st.int64(col));
}
std::optional<double> opt_real(const Statement& st, int col) {
  return st.is_null(col) ? std::nullopt : std::optional<double>(st.real(col));
}

constexpr const char* kPlanColumns =
    "id, run_id, coalesce(job, ''), kind, key, findings, spec, summary, created";

ActionPlanRow read_plan(const Statement& st) {
  return {st.int64(0), st.int64(1), st.text(2),
          st.text(3),  st.text(4),  parse_json_string_array(st.text_view(5)),
          st.text(6),  st.text(7),  st.text(8)};
}

constexpr const char* kApplyColumns =
    "id, plan_id, out_dir, allow_inexact, applied, actor, rolled_back, inputs";

ActionApplyRow read_apply(Database& db, const Statement& st) {
  ActionApplyRow a;
  a.id = st.int64(0);
  a.plan_id = st.int64(1);
  a.out_dir = st.text(2);
  a.allow_inexact = st.int64(3) != 0;
  a.applied = st.text(4);
  a.actor = st.text(5);
  if (!st.is_null(6)) a.rolled_back = st.text(6);
  a.inputs = st.text(7);
  auto files = db.prepare(
      "SELECT path, sha256, bytes, role FROM action_files WHERE apply_id = ?1 ORDER BY rowid");
  files.bind(1, a.id);
  while (files.step()) {
    a.files.push_back({files.text(0), files.text(1), files.int64(2), files.text(3)});
  }
  return a;
}

void insert_audit(Database& db, const ActionAuditRow& r) {
  db.prepare(
        "INSERT INTO action_audit(at, actor, event, plan_id, apply_id, findings, detail) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)")
      .bind(1, r.at)
      .bind(2, r.actor)
      .bind(3, r.event)
      .bind(4, r.plan_id)
      .bind(5, r.apply_id)
      .bind(6, json_string_array(r.findings))
      .bind(7, r.detail)
      .run();
}

}  // namespace

std::pair<int64_t, bool> save_action_plan(Database& db, ActionPlanRow plan) {
  Transaction txn(db);
  auto have = db.prepare("SELECT id FROM action_plans WHERE run_id = ?1 AND key = ?2");
  have.bind(1, plan.run_id).bind(2, plan.key);
  if (have.step()) return {have.int64(0), false};
  db.prepare(
        "INSERT INTO action_plans(run_id, job, kind, key, findings, spec, summary, created) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
      .bind(1, plan.run_id)
      .bind(2, plan.job)
      .bind(3, plan.kind)
      .bind(4, plan.key)
      .bind(5, json_string_array(plan.findings))
      .bind(6, plan.spec)
      .bind(7, plan.summary)
      .bind(8, plan.created)
      .run();
  int64_t id = db.last_insert_rowid();
  txn.commit();
  return {id, true};
}

std::optional<ActionPlanRow> load_action_plan(Database& db, int64_t id) {
  auto st = db.prepare(std::string("SELECT ") + kPlanColumns + " FROM action_plans WHERE id = ?1");
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  return read_plan(st);
}

std::vector<ActionPlanRow> load_action_plans(Database& db, std::optional<int64_t> run_id) {
  auto st = db.prepare(std::string("SELECT ") + kPlanColumns +
                       " FROM action_plans WHERE ?1 IS NULL OR run_id = ?1 ORDER BY id");
  st.bind(1, run_id);
  std::vector<ActionPlanRow> out;
  while (st.step()) out.push_back(read_plan(st));
  return out;
}

int64_t save_action_apply(Database& db, ActionApplyRow apply, const ActionAuditRow& audit) {
  FullSync sync(db);
  Transaction txn(db);
  db.prepare(
        "INSERT INTO action_applies(plan_id, out_dir, allow_inexact, applied, actor, inputs) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6)")
      .bind(1, apply.plan_id)
      .bind(2, apply.out_dir)
      .bind(3, apply.allow_inexact ? 1 : 0)
      .bind(4, apply.applied)
      .bind(5, apply.actor)
      .bind(6, apply.inputs)
      .run();
  int64_t id = db.last_insert_rowid();
  auto file = db.prepare(
      "INSERT INTO action_files(apply_id, path, sha256, bytes, role) VALUES(?1, ?2, ?3, ?4, ?5)");
  for (const auto& f : apply.files) {
    file.bind(1, id).bind(2, f.path).bind(3, f.sha256).bind(4, f.bytes).bind(5, f.role).run();
  }
  ActionAuditRow row = audit;
  row.apply_id = id;
  insert_audit(db, row);
  txn.commit();
  return id;
}

std::optional<ActionApplyRow> load_action_apply(Database& db, int64_t id) {
  auto st =
      db.prepare(std::string("SELECT ") + kApplyColumns + " FROM action_applies WHERE id = ?1");
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  return read_apply(db, st);
}

std::vector<ActionApplyRow> load_action_applies(Database& db, std::optional<int64_t> plan_id) {
  auto st = db.prepare(std::string("SELECT ") + kApplyColumns +
                       " FROM action_applies WHERE ?1 IS NULL OR plan_id = ?1 ORDER BY id");
  st.bind(1, plan_id);
  std::vector<ActionApplyRow> out;
  while (st.step()) out.push_back(read_apply(db, st));
  return out;
}

void mark_action_rolled_back(Database& db, int64_t apply_id, const std::string& at,
                             const ActionAuditRow& audit) {
  FullSync sync(db);
  Transaction txn(db);
  db.prepare("UPDATE action_applies SET rolled_back = ?2 WHERE id = ?1")
      .bind(1, apply_id)
      .bind(2, at)
      .run();
  insert_audit(db, audit);
  txn.commit();
}

void append_action_audit(Database& db, const ActionAuditRow& row) {
  FullSync sync(db);
  insert_audit(db, row);
}

std::vector<ActionAuditRow> load_action_audit(Database& db) {
  auto st = db.prepare(
      "SELECT id, at, actor, event, plan_id, apply_id, findings, detail FROM action_audit "
      "ORDER BY id");
  std::vector<ActionAuditRow> out;
  while (st.step()) {
    out.push_back({st.int64(0), st.text(1), st.text(2), st.text(3), opt_int(st, 4), opt_int(st, 5),
                   parse_json_string_array(st.text_view(6)), st.text(7)});
  }
  return out;
}

void save_action_verdict(Database& db, const ActionVerdictRow& r) {
  db.prepare(
        "INSERT OR REPLACE INTO action_verdicts(apply_id, finding, before_run, after_run, metric, "
        "unit, before, after, noise, verdict, finding_present, detail, judged) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")
      .bind(1, r.apply_id)
      .bind(2, r.finding)
      .bind(3, r.before_run)
      .bind(4, r.after_run)
      .bind(5, r.metric)
      .bind(6, r.unit)
      .bind(7, r.before)
      .bind(8, r.after)
      .bind(9, r.noise)
      .bind(10, r.verdict)
      .bind(11, r.finding_present ? 1 : 0)
      .bind(12, r.detail)
      .bind(13, r.judged)
      .run();
}

std::vector<ActionVerdictRow> load_action_verdicts(Database& db, std::optional<int64_t> apply_id) {
  auto st = db.prepare(
      "SELECT apply_id, finding, before_run, after_run, metric, unit, before, after, noise, "
      "verdict, finding_present, detail, judged FROM action_verdicts "
      "WHERE ?1 IS NULL OR apply_id = ?1 ORDER BY apply_id, finding");
  st.bind(1, apply_id);
  std::vector<ActionVerdictRow> out;
  while (st.step()) {
    ActionVerdictRow r;
    r.apply_id = st.int64(0);
    r.finding = st.text(1);
    r.before_run = st.int64(2);
    r.after_run = st.int64(3);
    r.metric = st.text(4);
    r.unit = st.text(5);
    r.before = opt_real(st, 6);
    r.after = opt_real(st, 7);
    r.noise = opt_real(st, 8);
    r.verdict = st.text(9);
    r.finding_present = st.int64(10) != 0;
    r.detail = st.text(11);
    r.judged = st.text(12);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace perfsage::store
