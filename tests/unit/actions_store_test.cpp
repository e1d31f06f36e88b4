// Stored tuning actions: plans are stored once per (run, key), applies keep their files and
// audit row together, rollbacks and verdicts are recorded, the trail survives its run.
#include <catch2/catch.hpp>

#include "store/action_store.h"
#include "store/schema.h"
#include "test_support.h"

using namespace perfsage::store;

namespace {
int synchronous(Database& db) {
  auto st = db.prepare("PRAGMA synchronous");
  st.step();
  return static_cast<int>(st.int64(0));
}
}  // namespace

TEST_CASE("action store: plans, applies, rollback, audit and verdicts") {
  perfsage::test::TempDir dir;
  Database db((dir.path() / "a.db").string());
  ActionPlanRow plan{0,
                     7,
                     "job",
                     "env_file",
                     "env_file:f1,f2",
                     {"f1", "f2"},
                     "{}",
                     "1 line",
                     "2024-01-01T00:00:00Z"};
  auto [id, fresh] = save_action_plan(db, plan);
  CHECK(fresh);
  auto [again, fresh2] = save_action_plan(db, plan);
  CHECK(again == id);
  CHECK_FALSE(fresh2);
  plan.key = "other";
  CHECK(save_action_plan(db, plan).first != id);
  CHECK(load_action_plans(db, 7).size() == 2);
  CHECK(load_action_plans(db, 8).empty());
  auto loaded = load_action_plan(db, id);
  REQUIRE(loaded);
  CHECK(loaded->findings == std::vector<std::string>{"f1", "f2"});
  CHECK(loaded->job == "job");

  ActionApplyRow apply;
  apply.plan_id = id;
  apply.out_dir = "/out";
  apply.applied = "2024-01-01T00:01:00Z";
  apply.actor = "me@host";
  apply.inputs = "[]";
  apply.files = {{"/out/perfsage.env", "abc", 12, "env"}};
  ActionAuditRow audit{0, apply.applied, "me@host", "apply", id, {}, {"f1", "f2"}, "wrote 1"};
  int64_t apply_id = save_action_apply(db, apply, audit);
  CHECK(synchronous(db) == 1);  // NORMAL again after the FULL write
  auto a = load_action_apply(db, apply_id);
  REQUIRE(a);
  CHECK(a->files.size() == 1);
  CHECK(a->files[0].sha256 == "abc");
  CHECK_FALSE(a->rolled_back);
  mark_action_rolled_back(
      db, apply_id, "2024-01-02T00:00:00Z",
      {0, "2024-01-02T00:00:00Z", "me@host", "rollback", id, apply_id, {}, "x"});
  CHECK(load_action_apply(db, apply_id)->rolled_back == "2024-01-02T00:00:00Z");
  auto trail = load_action_audit(db);
  REQUIRE(trail.size() == 2);
  CHECK(trail[0].event == "apply");
  CHECK(trail[0].apply_id == apply_id);
  CHECK(trail[1].event == "rollback");

  ActionVerdictRow v;
  v.apply_id = apply_id;
  v.finding = "f1";
  v.before_run = 7;
  v.after_run = 9;
  v.metric = "step_time_us";
  v.before = 100;
  v.after = 80;
  v.verdict = "helped";
  v.judged = "t";
  save_action_verdict(db, v);
  v.after = 99;
  v.verdict = "no_effect";
  save_action_verdict(db, v);  // replaces
  auto verdicts = load_action_verdicts(db);
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0].verdict == "no_effect");
  CHECK(*verdicts[0].after == 99);
  CHECK_FALSE(verdicts[0].noise);
}
