// The action lifecycle on a real model without the analysis service: findings (as the engine
// types them) -> plan -> apply (new files only, idempotent) -> rollback (refused while a file
// changed) -> audit trail; and a verdict once the rewritten model is the job's next run.
#include <catch2/catch.hpp>
#include <fstream>

#include "../actions/ingest_support.h"
#include "actions/files.h"
#include "actions/lifecycle.h"
#include "actions/onnx_rewrite.h"
#include "actions/plan.h"
#include "actions/verify.h"
#include "store/number_text.h"
#include "test_support.h"

using namespace perfsage;
using namespace perfsage::actions;
namespace fs = std::filesystem;
namespace v1 = perfsage::v1;

namespace {

Actor test_actor() {
  auto n = std::make_shared<int>(0);
  return {"tester@host", [n] {
            char buf[32];
            std::snprintf(buf, sizeof buf, "2024-02-01T00:00:%02dZ", (*n)++);
            return std::string(buf);
          }};
}

v1::Finding onnx_finding(const std::string& id, const std::string& pass,
                         std::vector<std::string> nodes) {
  v1::Finding f;
  f.set_id(id);
  f.set_pack("graph_cleanup");
  f.set_rule(pass);
  f.set_title(pass + " at " + nodes.front());
  for (const auto& n : nodes) f.add_subjects(n);
  f.mutable_action()->set_kind("onnx_rewrite");
  f.mutable_action()->mutable_onnx_rewrite()->set_pass(pass);
  return f;
}

v1::Finding env_finding(const std::string& id, const std::string& set) {
  v1::Finding f;
  f.set_id(id);
  f.set_title("env " + set);
  f.mutable_action()->set_kind("env_file");
  f.mutable_action()->mutable_env_file()->add_set(set);
  return f;
}

void mark_analysed(store::Database& db, int64_t run) {
  db.prepare("INSERT INTO pack_results(run_id, pack, status, fired) VALUES(?1, 'p', 'ok', 0)")
      .bind(1, run)
      .run();
}

std::vector<std::string> events(store::Database& db) {
  std::vector<std::string> out;
  auto trail = audit_trail(db);
  for (const auto& e : trail.entries()) out.push_back(e.event());
  return out;
}

const v1::PlannedAction& plan_of(const std::vector<v1::PlannedAction>& plans, const char* kind) {
  for (const auto& p : plans) {
    if (p.kind() == kind) return p;
  }
  FAIL("no " << kind << " plan");
  throw 0;
}

}  // namespace

TEST_CASE("actions: plan, apply, apply again, rollback, audit, verdict") {
  test::TempDir dir;
  auto model = dir.path() / "models" / "small_cnn.onnx";
  fs::create_directories(model.parent_path());
  fs::copy_file(test::source_dir() / "tests/fixtures/graph/small_cnn.onnx", model);
  auto input_sha = sha256_file(model);
  store::Database db((dir.path() / "s.db").string());
  int64_t run = test::ingest_for_actions(db, {model}, "small_cnn", "2024-01-01T00:00:00Z");
  mark_analysed(db, run);
  std::vector<v1::Finding> findings = {
      onnx_finding("fold1", "fold_batchnorm", {"conv1", "bn1"}),
      onnx_finding("gemm1", "fuse_matmul_add", {"fc_matmul", "fc_add"}),
      onnx_finding("cast1", "remove_cast_round_trip", {"to_half", "to_float"}),
      env_finding("env1", "TASK_QUEUE_ENABLE=2"),
      env_finding("env2", "TASK_QUEUE_ENABLE=1"),
      v1::Finding()};  // proposes nothing
  auto actor = test_actor();

  auto planned = plan_actions(db, {run, "small_cnn", actor.clock()}, findings);
  REQUIRE(planned.plans.size() == 2);
  auto plans = save_plans(db, planned.plans, actor);
  const auto& onnx = plan_of(plans, "onnx_rewrite");
  CHECK(onnx.steps_size() == 3);
  CHECK(onnx.has_inexact());  // the float16 round trip is only proposed
  REQUIRE(onnx.files_size() == 1);
  CHECK(onnx.files(0).path() == "small_cnn.onnx");
  REQUIRE(onnx.inputs_size() == 1);
  CHECK(onnx.inputs(0).sha256() == input_sha);
  std::string notes;
  for (const auto& n : onnx.notes()) notes += n + "\n";
  CHECK_THAT(notes, Catch::Contains("finding fold1: folded BatchNormalization") &&
                        Catch::Contains("finding cast1: proposed, not applied without "
                                        "--allow-inexact") &&
                        Catch::Contains("float16"));
  const auto& env = plan_of(plans, "env_file");
  CHECK(env.steps_size() == 2);
  CHECK_THAT(env.notes(0), Catch::Contains("keeps the first"));
  // Planning the same findings again stores nothing new.
  auto again =
      save_plans(db, plan_actions(db, {run, "small_cnn", actor.clock()}, findings).plans, actor);
  CHECK(again[0].id() == plans[0].id());
  CHECK(again[1].id() == plans[1].id());

  // Apply: the rewritten model goes beside the store (never into a watched folder of inputs),
  // under perfsage-actions/plan-<id>.
  auto applied = apply_action(db, onnx.id(), {}, actor);
  fs::path out = dir.path() / "perfsage-actions" / ("plan-" + std::to_string(onnx.id()));
  CHECK(applied.out_dir() == out.string());
  REQUIRE(applied.files_size() == 1);
  CHECK(applied.files(0).path() == (out / "small_cnn.onnx").string());
  CHECK(applied.files(0).sha256() == onnx.files(0).sha256());  // what the plan previewed
  CHECK(sha256_file(model) == input_sha);                      // the input is untouched
  CHECK_FALSE(applied.already_applied());
  // Again: a no-op naming the first apply.
  auto noop = apply_action(db, onnx.id(), {}, actor);
  CHECK(noop.already_applied());
  CHECK(noop.id() == applied.id());
  // Into the input's own folder: refused, the model is not replaced.
  CHECK_THROWS_WITH(apply_action(db, onnx.id(), {model.parent_path(), false}, actor),
                    Catch::Contains("would write over its input"));
  CHECK(sha256_file(model) == input_sha);

  // Rollback is refused while the written file differs from what was written.
  auto written = out / "small_cnn.onnx";
  std::string bytes;
  {
    std::ifstream in(written, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(written, std::ios::binary | std::ios::app) << "x";
  CHECK_THROWS_WITH(
      rollback_action(db, applied.id(), actor),
      Catch::Contains("changed since the apply") && Catch::Contains("small_cnn.onnx"));
  CHECK(fs::exists(written));

  // The job's next run: the rewritten model. Fold and fuse are judged on the finding's nodes.
  std::ofstream(written, std::ios::binary | std::ios::trunc) << bytes;
  int64_t next = test::ingest_for_actions(db, {written}, "small_cnn", "2024-03-01T00:00:00Z");
  mark_analysed(db, next);
  auto findings_of = [&](int64_t r) {
    // The fold and fuse findings no longer fire; the Cast round trip still does.
    return r == run ? findings : std::vector<v1::Finding>{findings[2]};
  };
  auto verdicts = verify_actions(db, findings_of, actor);
  REQUIRE(verdicts.size() == 3);
  std::map<std::string, v1::ActionVerdict> by;
  for (const auto& v : verdicts) by[v.finding()] = v;
  CHECK(by["fold1"].verdict() == "helped");
  CHECK(by["fold1"].before() == 2);  // conv1 and bn1
  CHECK(by["fold1"].after() == 1);   // bn1 folded away
  CHECK_FALSE(by["fold1"].finding_present());
  CHECK(by["gemm1"].verdict() == "helped");       // fc_add gone, the Gemm keeps fc_matmul's name
  CHECK(by["cast1"].verdict() == "not_applied");  // inexact, and not allowed
  CHECK_THAT(by["cast1"].detail(), Catch::Contains("--allow-inexact"));
  CHECK(by["cast1"].finding_present());
  CHECK(by["fold1"].after_run() == next);
  CHECK(list_actions(db).verdicts_size() == 3);

  auto rolled = rollback_action(db, applied.id(), actor);
  CHECK_FALSE(rolled.rolled_back().empty());
  CHECK_FALSE(fs::exists(written));
  CHECK_FALSE(fs::exists(out));  // the emptied folder goes too
  CHECK(sha256_file(model) == input_sha);
  CHECK_THROWS_WITH(rollback_action(db, applied.id(), actor),
                    Catch::Contains("already rolled back"));
  CHECK(events(db) == std::vector<std::string>{"plan", "plan", "apply", "apply_noop",
                                               "apply_refused", "rollback_refused", "verify",
                                               "rollback"});
  auto trail = audit_trail(db);
  const auto& apply_row = trail.entries(2);
  CHECK(apply_row.actor() == "tester@host");
  REQUIRE(apply_row.files_size() == 1);
  CHECK(apply_row.files(0).sha256() == applied.files(0).sha256());
  CHECK(apply_row.findings_size() == 3);
}

TEST_CASE("actions: an inexact rewrite is applied only when allowed") {
  test::TempDir dir;
  auto model = dir.path() / "small_cnn.onnx";
  fs::copy_file(test::source_dir() / "tests/fixtures/graph/small_cnn.onnx", model);
  store::Database db((dir.path() / "s.db").string());
  int64_t run = test::ingest_for_actions(db, {model});
  auto actor = test_actor();
  auto only_cast = plan_actions(db, {run, "test", actor.clock()},
                                {onnx_finding("cast1", "remove_cast_round_trip", {"to_half"})});
  auto plans = save_plans(db, only_cast.plans, actor);
  REQUIRE(plans.size() == 1);
  CHECK(plans[0].files_size() == 0);  // exact-only: nothing to write
  CHECK_THROWS_WITH(apply_action(db, plans[0].id(), {dir.path() / "out", false}, actor),
                    Catch::Contains("nothing to write"));
  auto applied = apply_action(db, plans[0].id(), {dir.path() / "out", true}, actor);
  REQUIRE(applied.files_size() == 1);
  CHECK(applied.allow_inexact());
  // A finding of another run, or one proposing nothing, is said so.
  auto none = plan_actions(db, {run, "test", actor.clock()}, {}, {"nope"});
  CHECK(none.plans.empty());
  CHECK(none.notes == std::vector<std::string>{"finding nope is not a finding of this run"});
}

TEST_CASE("actions: Ascend samples give one fusion switch file, one AOE list, one env file") {
  PERFSAGE_REQUIRE_SAMPLES();
  test::TempDir dir;
  store::Database db((dir.path() / "s.db").string());
  auto actor = test_actor();
  auto oam = test::samples_dir() / "ascend/oam-tools";
  int64_t graph_run = test::ingest_for_actions(
      db, {oam / "fusion_result.json", oam / "ge_proto_00000001_Build.txt"}, "ge");
  v1::Finding fusion;
  fusion.set_id("fs1");
  fusion.set_title("ConstToAttrGatherV2Fusion matched but took no effect");
  fusion.add_subjects("ConstToAttrGatherV2Fusion");
  fusion.mutable_action()->set_kind("fusion_switch");
  fusion.mutable_action()->mutable_fusion_switch()->add_disable("ConstToAttrGatherV2Fusion");
  auto plans =
      save_plans(db, plan_actions(db, {graph_run, "ge", actor.clock()}, {fusion}).plans, actor);
  REQUIRE(plans.size() == 1);
  // The dump names no fusion switch file (ge.fusionSwitchFile is empty): nothing to merge.
  CHECK(plans[0].inputs_size() == 0);
  auto out = dir.path() / "fs";
  auto applied = apply_action(db, plans[0].id(), {out, false}, actor);
  REQUIRE(applied.files_size() == 2);
  std::ifstream json(out / "fusion_switch.cfg");
  std::string text((std::istreambuf_iterator<char>(json)), {});
  CHECK_THAT(text, Catch::Contains("\"GraphFusion\": {\n      \"ConstToAttrGatherV2Fusion\": "
                                   "\"off\""));
  CHECK_THAT(applied.usage(0), Catch::Equals("ATC: atc ... --fusion_switch_file=" +
                                             (out / "fusion_switch.cfg").string()));

  int64_t op_run = test::ingest_for_actions(
      db, {test::samples_dir() / "ascend/mstt/kernel_details_arith_util.csv"}, "train");
  v1::Finding aoe, env, hint;
  aoe.set_id("aoe1");
  aoe.set_estimated_gain_us(120);
  aoe.mutable_action()->mutable_aoe()->add_ops("BatchMatMul");
  env.set_id("env1");
  env.mutable_action()->mutable_env_file()->add_set(
      "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True");
  hint.set_id("hint1");
  hint.mutable_action()->mutable_code_hint()->set_hint("use torch_npu.optim.NpuFusedAdamW");
  auto train = save_plans(
      db, plan_actions(db, {op_run, "train", actor.clock()}, {aoe, env, hint}).plans, actor);
  REQUIRE(train.size() == 3);
  const auto& aoe_plan = plan_of(train, "aoe");
  REQUIRE(aoe_plan.files_size() == 1);
  CHECK(aoe_plan.files(0).path() == "aoe_tune_ops.cfg");
  std::string usage;
  for (const auto& u : aoe_plan.usage()) usage += u + "\n";
  CHECK_THAT(usage,
             Catch::Contains("export AOE_MODE=2") && Catch::Contains("--tune_ops_file=<out>/"));
  auto env_apply =
      apply_action(db, plan_of(train, "env_file").id(), {dir.path() / "env", false}, actor);
  REQUIRE(env_apply.files_size() == 1);
  CHECK_THAT(env_apply.usage(0),
             Catch::StartsWith(". " + (dir.path() / "env/perfsage.env").string()));
  auto hint_apply =
      apply_action(db, plan_of(train, "code_hint").id(), {dir.path() / "hints", false}, actor);
  CHECK(hint_apply.files(0).role() == "code_hints");
}

TEST_CASE("actions: a model with external data gets its data file linked, not copied or moved") {
  test::TempDir dir;
  namespace ox = perfsage::onnx;
  // x -> Identity -> MatMul(w) -> y, with w (4x2 floats) in w.bin beside the model.
  ox::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto& g = *m.mutable_graph();
  g.set_name("ext");
  auto io = [](ox::ValueInfoProto* v, const char* name, std::vector<int64_t> dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(ox::TensorProto::FLOAT);
    for (auto d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  };
  io(g.add_input(), "x", {3, 4});
  io(g.add_output(), "y", {3, 2});
  auto* id = g.add_node();
  id->set_op_type("Identity");
  id->set_name("id");
  id->add_input("x");
  id->add_output("xi");
  auto* mm = g.add_node();
  mm->set_op_type("MatMul");
  mm->set_name("mm");
  mm->add_input("xi");
  mm->add_input("w");
  mm->add_output("y");
  auto* w = g.add_initializer();
  w->set_name("w");
  w->set_data_type(ox::TensorProto::FLOAT);
  w->add_dims(4);
  w->add_dims(2);
  w->set_data_location(ox::TensorProto::EXTERNAL);
  auto* loc = w->add_external_data();
  loc->set_key("location");
  loc->set_value("w.bin");
  fs::create_directories(dir.path() / "m");
  std::ofstream(dir.path() / "m/ext.onnx", std::ios::binary) << serialize_onnx_model(m);
  std::ofstream(dir.path() / "m/w.bin", std::ios::binary) << std::string(32, '\1');

  store::Database db((dir.path() / "s.db").string());
  int64_t run = test::ingest_for_actions(db, {dir.path() / "m/ext.onnx"}, "ext");
  auto actor = test_actor();
  auto plans = save_plans(
      db,
      plan_actions(db, {run, "ext", actor.clock()}, {onnx_finding("i1", "remove_identity", {"id"})})
          .plans,
      actor);
  REQUIRE(plans.size() == 1);
  auto applied = apply_action(db, plans[0].id(), {dir.path() / "out", false}, actor);
  REQUIRE(applied.files_size() == 2);
  CHECK(applied.files(1).role() == "external_data");
  auto linked = dir.path() / "out/w.bin";
  CHECK(fs::hard_link_count(linked) == 2);  // the same data, a second name
  CHECK(fs::equivalent(linked, dir.path() / "m/w.bin"));
  rollback_action(db, applied.id(), actor);
  CHECK_FALSE(fs::exists(linked));
  CHECK(fs::exists(dir.path() / "m/w.bin"));
  CHECK(fs::hard_link_count(dir.path() / "m/w.bin") == 1);
}

TEST_CASE(
    "actions: an AOE action is judged on its ops' time when the finding has no time evidence") {
  PERFSAGE_REQUIRE_SAMPLES();
  test::TempDir dir;
  store::Database db((dir.path() / "s.db").string());
  auto actor = test_actor();
  auto sample = test::samples_dir() / "ascend/mstt/kernel_details_arith_util.csv";
  int64_t run = test::ingest_for_actions(db, {sample}, "train", "2024-01-01T00:00:00Z");
  mark_analysed(db, run);
  v1::Finding aoe;
  aoe.set_id("aoe1");
  aoe.set_estimated_gain_us(120);
  aoe.mutable_action()->mutable_aoe()->add_ops("BatchMatMul");  // an op type: all its ops
  auto plans = save_plans(db, plan_actions(db, {run, "train", actor.clock()}, {aoe}).plans, actor);
  REQUIRE(plans.size() == 1);
  apply_action(db, plans[0].id(), {dir.path() / "aoe", false}, actor);
  CHECK(verify_actions(
            db, [](int64_t) { return std::vector<v1::Finding>{}; }, actor)
            .empty());

  // The same profile again (a copy: a new run of the job), and one where BatchMatMul is faster.
  auto copy = dir.path() / "again.csv";
  fs::copy_file(sample, copy);
  int64_t same = test::ingest_for_actions(db, {copy}, "train", "2024-03-01T00:00:00Z");
  mark_analysed(db, same);
  auto findings_of = [&](int64_t r) {
    return r == run ? std::vector<v1::Finding>{aoe} : std::vector<v1::Finding>{};
  };
  // One recorded step per run: the noise is unknown, so is the verdict; the change is stated.
  auto verdicts = verify_actions(db, findings_of, actor);
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0].metric() == "time of the finding's ops");
  CHECK(verdicts[0].before() > 0);
  CHECK(verdicts[0].after() == Approx(verdicts[0].before()));
  CHECK(verdicts[0].verdict() == "unknown");
  CHECK_FALSE(verdicts[0].has_noise());
  CHECK_THAT(verdicts[0].detail(), Catch::Contains("noise band unknown"));
  CHECK_FALSE(verdicts[0].finding_present());

  // Four steps per run, 100/102/98/100 ms and 100/101/99/100 ms: the band is twice the larger
  // coefficient of variation (sd 1.633 / mean 100 = 1.633 %), 3.266 % of the before value.
  auto steps = [&](int64_t r, std::vector<int64_t> ms) {
    db.prepare("DELETE FROM steps WHERE run_id = ?1").bind(1, r).run();
    for (size_t i = 0; i < ms.size(); ++i)
      db.prepare("INSERT INTO steps(run_id, step, source, dur_ns) VALUES (?1, ?2, 'test', ?3)")
          .bind(1, r)
          .bind(2, static_cast<int64_t>(i + 1))
          .bind(3, ms[i] * 1000000)
          .run();
  };
  steps(run, {100, 102, 98, 100});
  steps(same, {100, 101, 99, 100});
  verdicts = verify_actions(db, findings_of, actor);
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0].unit() == "us per step");
  CHECK(verdicts[0].verdict() == "no_effect");
  CHECK(verdicts[0].noise() == Approx(0.03266 * verdicts[0].before()).epsilon(1e-3));
  // A 3 % slower BatchMatMul stays inside the band; halving it reads as helped.
  auto scale = [&](double f) {
    db.prepare(
          "UPDATE op_stats SET total_us = total_us * ?2 WHERE run_id = ?1 AND "
          "type = 'BatchMatMul'")
        .bind(1, same)
        .bind(2, f)
        .run();
  };
  scale(1.03);
  CHECK(verify_actions(db, findings_of, actor)[0].verdict() == "no_effect");
  scale(0.5 / 1.03);
  verdicts = verify_actions(db, findings_of, actor);
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0].after() == Approx(verdicts[0].before() / 2));
  CHECK(verdicts[0].verdict() == "helped");
  // The change reads as the text report writes times (issue 26 item 16: "2.185e+04 -> ..." was
  // printed), the band too.
  CHECK_THAT(verdicts[0].detail(),
             Catch::StartsWith(
                 "time of the finding's ops: " + store::format_us(verdicts[0].before()) +
                 " per step -> " + store::format_us(verdicts[0].after()) + " per step (-50.0 %)"));
  CHECK_THAT(verdicts[0].detail(),
             Catch::Contains("(+/-" + store::format_us(verdicts[0].noise()) + " per step)"));
  CHECK_THAT(verdicts[0].detail(), !Catch::Contains("e+"));
  CHECK(list_actions(db).verdicts(0).verdict() == "helped");  // the stored verdict was replaced
  scale(2 * 1.1);                                             // 10 % slower than before the apply
  CHECK(verify_actions(db, findings_of, actor)[0].verdict() == "regressed");

  // Two ranks, the second 20 ms slower in every step: the band comes from each rank's own steps
  // (rank 0: sd 1.633 / mean 100; rank 1: 1.633 / 120), the larger, 1.633 %, doubled: 3.266 %.
  // The steps of both ranks mixed (98..122 ms, sd 10.80 / mean 110) would give 19.6 %, and the
  // 10 % faster BatchMatMul below would read as no effect.
  auto ranked_steps = [&](int64_t r) {
    db.prepare("DELETE FROM steps WHERE run_id = ?1").bind(1, r).run();
    const int64_t ms[] = {100, 102, 98, 100};
    for (int64_t rank = 0; rank < 2; ++rank) {
      for (int64_t i = 0; i < 4; ++i) {
        db.prepare(
              "INSERT INTO steps(run_id, rank, step, source, dur_ns) VALUES (?1, ?2, ?3, 'test', "
              "?4)")
            .bind(1, r)
            .bind(2, rank)
            .bind(3, i + 1)
            .bind(4, (ms[i] + 20 * rank) * 1000000)
            .run();
      }
    }
  };
  ranked_steps(run);
  ranked_steps(same);
  scale(0.9 / 1.1);  // 10 % faster than before the apply
  verdicts = verify_actions(db, findings_of, actor);
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0].noise() == Approx(0.03266 * verdicts[0].before()).epsilon(1e-3));
  CHECK(verdicts[0].after() == Approx(0.9 * verdicts[0].before()));
  CHECK(verdicts[0].verdict() == "helped");
  CHECK_THAT(verdicts[0].detail(), Catch::Contains("2 ranks of at least 4 steps"));
}

namespace {

// A store at `path` holding small_cnn.onnx (copied into `dir`) as a run with one planned
// BatchNorm fold; returns the plan's id.
int64_t planned_fold(const fs::path& dir, const std::string& path, const Actor& actor) {
  auto model = dir / "small_cnn.onnx";
  fs::copy_file(test::source_dir() / "tests/fixtures/graph/small_cnn.onnx", model);
  store::Database db(path);
  int64_t run = test::ingest_for_actions(db, {model});
  auto plans = save_plans(db,
                          plan_actions(db, {run, "test", actor.clock()},
                                       {onnx_finding("fold1", "fold_batchnorm", {"bn1"})})
                              .plans,
                          actor);
  return plans.at(0).id();
}

}  // namespace

TEST_CASE("actions: an apply the store cannot record leaves no files behind") {
  test::TempDir dir;
  auto path = (dir.path() / "s.db").string();
  auto actor = test_actor();
  int64_t plan_id = planned_fold(dir.path(), path, actor);
  auto reader = store::Database::open_reader(path);  // read-only: the apply cannot be stored
  CHECK_THROWS(apply_action(*reader, plan_id, {dir.path() / "out", false}, actor));
  CHECK_FALSE(fs::exists(dir.path() / "out" / "small_cnn.onnx"));
  store::Database db(path);
  CHECK(list_actions(db).applies_size() == 0);
}

TEST_CASE("actions: a rollback the store cannot record puts every file back") {
  test::TempDir dir;
  auto path = (dir.path() / "s.db").string();
  auto actor = test_actor();
  auto out = dir.path() / "out";
  int64_t plan_id = planned_fold(dir.path(), path, actor);
  int64_t apply_id;
  std::string sha;
  {
    store::Database db(path);
    auto applied = apply_action(db, plan_id, {out, false}, actor);
    apply_id = applied.id();
    sha = applied.files(0).sha256();
  }
  auto listing = [&] {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(out)) names.push_back(e.path().filename());
    return names;
  };
  auto reader = store::Database::open_reader(path);  // read-only: the rollback cannot be stored
  CHECK_THROWS(rollback_action(*reader, apply_id, actor));
  // Nothing removed, nothing left aside: the folder holds exactly the applied file.
  CHECK(listing() == std::vector<std::string>{"small_cnn.onnx"});
  CHECK(sha256_file(out / "small_cnn.onnx") == sha);
  store::Database db(path);
  CHECK(list_actions(db).applies(0).rolled_back().empty());
  rollback_action(db, apply_id, actor);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("actions: the activation pack's Mish finding rewrites the whole model when allowed") {
  test::TempDir dir;
  namespace ox = perfsage::onnx;
  ox::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto& g = *m.mutable_graph();
  g.set_name("mish");
  for (auto [v, name] : {std::pair{g.add_input(), "x"}, std::pair{g.add_output(), "y"}}) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(ox::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(8);
  }
  auto node = [&](const char* type, std::vector<std::string> in, const char* out) {
    auto* n = g.add_node();
    n->set_op_type(type);
    for (auto& i : in) n->add_input(i);
    n->add_output(out);
  };
  node("Relu", {"x"}, "r");
  node("Softplus", {"r"}, "sp");
  node("Tanh", {"sp"}, "t");
  node("Mul", {"r", "t"}, "y");
  std::ofstream(dir.path() / "mish.onnx", std::ios::binary) << serialize_onnx_model(m);
  store::Database db((dir.path() / "s.db").string());
  int64_t run = test::ingest_for_actions(db, {dir.path() / "mish.onnx"}, "mish");
  // As the activation pack writes it: the subject is a profiled op, not a graph node.
  v1::Finding f;
  f.set_id("mish1");
  f.add_subjects("aten::softplus");
  auto* a = f.mutable_action();
  a->set_kind("onnx_rewrite");
  a->mutable_onnx_rewrite()->set_pass("replace_activation");
  a->mutable_onnx_rewrite()->set_pattern("mish");
  a->mutable_onnx_rewrite()->set_replacement("LeakyRelu");
  a->mutable_onnx_rewrite()->set_opt_in(true);
  auto actor = test_actor();
  auto plans = save_plans(db, plan_actions(db, {run, "mish", actor.clock()}, {f}).plans, actor);
  REQUIRE(plans.size() == 1);
  CHECK(plans[0].has_inexact());
  CHECK(plans[0].files_size() == 0);  // nothing exact to write
  CHECK_THAT(plans[0].notes(0), Catch::Contains("proposed") && Catch::Contains("LeakyRelu"));
  auto applied = apply_action(db, plans[0].id(), {dir.path() / "out", true}, actor);
  auto rewritten = read_onnx_model(applied.files(0).path());
  REQUIRE(rewritten.graph().node_size() == 2);
  CHECK(rewritten.graph().node(1).op_type() == "LeakyRelu");
  CHECK(rewritten.graph().node(1).output(0) == "y");
}
