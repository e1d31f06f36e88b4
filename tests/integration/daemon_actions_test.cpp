// A run's tuning actions through perfsaged's API: planned on request, applied only where the
// config allows it, into the daemon's actions folder, never beside the inputs.
#include "daemon_support.h"
#include "perfsage/v1/action_plan.pb.h"

using namespace perfsage::test;
namespace fs = std::filesystem;
namespace v1 = perfsage::v1;

namespace {

std::string config(bool apply) {
  return std::string(
             "daemon:\n  store: perf.db\n  listen: 127.0.0.1:0\n  workers: 1\n"
             "  submit_roots: [inputs]\n") +
         (apply ? "  api_apply_actions: true\n" : "");
}

std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A copy of the daemon's fixture run under dir/inputs, outside any watched folder.
fs::path copy_fixture(const fs::path& dir) {
  fs::path input = dir / "inputs" / "run1";
  fs::create_directories(input.parent_path());
  fs::copy(source_dir() / "tests/fixtures/daemon/ascend_run", input, fs::copy_options::recursive);
  return input;
}

}  // namespace

TEST_CASE("a run's actions are planned over the API and applied only where the config allows") {
  TempDir dir;
  fs::path input = copy_fixture(dir.path());
  auto before = files_under(input);
  int64_t run = 0, plan = 0;
  {
    DaemonProcess d(dir.path(), config(false));
    REQUIRE(d.start());
    auto job = d.wait_job(d.submit(input).id());
    REQUIRE(job.state() == "done");
    run = job.run_id();
    std::string actions = "/api/v1/runs/" + std::to_string(run) + "/actions";
    CHECK(d.get_json<v1::ActionList>(actions).plans_size() == 0);

    auto planned = d.post(actions + "/plan", "{}");
    REQUIRE(planned.status == 200);
    auto p = parse_reply<v1::PlanActionsResponse>(planned);
    CHECK(p.run_id() == run);
    REQUIRE(p.plans_size() > 0);
    // The fixture's MatMuls are far below their compute roof: AOE is proposed for them.
    auto aoe = std::find_if(p.plans().begin(), p.plans().end(),
                            [](const v1::PlannedAction& a) { return a.kind() == "aoe"; });
    REQUIRE(aoe != p.plans().end());
    CHECK(aoe->steps(0).action().aoe().ops(0).rfind("MatMul_", 0) == 0);
    plan = aoe->id();
    // Planning again gives the same stored plans; listing shows them.
    auto again = parse_reply<v1::PlanActionsResponse>(d.post(actions + "/plan", "{}"));
    CHECK(again.plans(0).id() == p.plans(0).id());
    CHECK(d.get_json<v1::ActionList>(actions).plans_size() == p.plans_size());

    auto refused = d.post("/api/v1/actions/" + std::to_string(plan) + "/apply", "{}");
    CHECK(refused.status == 403);
    CHECK_THAT(refused.body, Catch::Contains("daemon.api_apply_actions"));
    CHECK_FALSE(fs::exists(dir.path() / "perfsage-actions"));
    CHECK(d.post("/api/v1/runs/999/actions/plan", "{}").status == 404);
    CHECK(d.get("/api/v1/runs/999/actions").status == 404);
    CHECK(d.post(actions + "/plan", "{\"findings\": 3}").status == 400);
    CHECK(d.kill(SIGTERM) == 0);
  }
  DaemonProcess d(dir.path(), config(true));
  REQUIRE(d.start());
  std::string apply = "/api/v1/actions/" + std::to_string(plan) + "/apply";
  auto applied = d.post(apply, "{}");
  REQUIRE(applied.status == 201);
  auto a = parse_reply<v1::ActionApply>(applied);
  fs::path out = dir.path() / "perfsage-actions" / ("plan-" + std::to_string(plan));
  CHECK(fs::path(a.out_dir()) == out);
  REQUIRE(a.files_size() > 0);
  CHECK(fs::exists(a.files(0).path()));
  CHECK_THAT(a.actor(), Catch::Contains("perfsaged API, 127.0.0.1"));
  CHECK(files_under(input) == before);  // nothing written beside the inputs
  auto twice = d.post(apply, "{}");
  CHECK(twice.status == 200);
  CHECK(parse_reply<v1::ActionApply>(twice).already_applied());
  CHECK(d.post("/api/v1/actions/99999/apply", "{}").status == 404);

  auto rolled = d.post("/api/v1/applies/" + std::to_string(a.id()) + "/rollback", "{}");
  REQUIRE(rolled.status == 200);
  CHECK_FALSE(parse_reply<v1::ActionApply>(rolled).rolled_back().empty());
  CHECK_FALSE(fs::exists(a.files(0).path()));
  CHECK(d.post("/api/v1/applies/" + std::to_string(a.id()) + "/rollback", "{}").status == 409);
  auto list = d.get_json<v1::ActionList>("/api/v1/runs/" + std::to_string(run) + "/actions");
  CHECK(list.applies_size() == 1);
  CHECK(d.kill(SIGTERM) == 0);
}

TEST_CASE("auto_apply_actions applies a run's exact actions once it is analysed") {
  TempDir dir;
  fs::path input = copy_fixture(dir.path());
  auto before = files_under(input);
  DaemonProcess d(dir.path(), config(false) + "  auto_apply_actions: true\n");
  REQUIRE(d.start());
  auto job = d.wait_job(d.submit(input).id());
  REQUIRE(job.state() == "done");
  auto list =
      d.get_json<v1::ActionList>("/api/v1/runs/" + std::to_string(job.run_id()) + "/actions");
  REQUIRE(list.plans_size() > 0);
  // Every plan without a rewrite that changes outputs is applied, by the daemon itself.
  int exact = 0;
  for (const auto& p : list.plans()) exact += p.has_inexact() ? 0 : 1;
  CHECK(list.applies_size() == exact);
  REQUIRE(list.applies_size() > 0);
  for (const auto& a : list.applies()) {
    CHECK_THAT(a.actor(), Catch::Contains("(perfsaged, automatic)"));
    CHECK(fs::path(a.out_dir()).parent_path() == dir.path() / "perfsage-actions");
    for (const auto& f : a.files()) CHECK(fs::exists(f.path()));
  }
  CHECK(files_under(input) == before);
  CHECK_THAT(d.get("/metrics").body,
             Catch::Contains("perfsage_actions_applied_total " + std::to_string(exact)));
  CHECK(d.kill(SIGTERM) == 0);
}

namespace {

// Runs `perfsage ARGS --format json` and parses its ActionList.
v1::ActionList cli_actions(const fs::path& dir, const std::string& args) {
  auto out = dir / "cli.json";
  std::string cmd = perfsage_binary().string() + " actions " + args + " --format json > " +
                    out.string() + " 2> " + (dir / "cli.err").string();
  int rc = std::system(cmd.c_str());
  std::ifstream in(out), err(dir / "cli.err");
  std::string json((std::istreambuf_iterator<char>(in)), {});
  INFO(args << " -> " << rc << ": " << std::string((std::istreambuf_iterator<char>(err)), {}));
  REQUIRE(WEXITSTATUS(rc) == 0);
  v1::ActionList list;
  REQUIRE(google::protobuf::util::JsonStringToMessage(json, &list).ok());
  return list;
}

}  // namespace

TEST_CASE("the CLI's action output and a run with nothing recognised never become runs") {
  TempDir dir;
  auto runs = dir.path() / "runs";
  fs::create_directories(runs / "bert");
  fs::copy(source_dir() / "tests/fixtures/daemon/ascend_run", runs / "bert" / "r1",
           fs::copy_options::recursive);
  DaemonProcess d(dir.path(),
                  "daemon:\n  store: perf.db\n  listen: 127.0.0.1:0\n  workers: 1\n"
                  "  debounce: 200ms\n  quiet: 1s\n  watch:\n    - path: " +
                      runs.string() + "\n      runs: \"*/*\"\n      job: \"{1}\"\n");
  REQUIRE(d.start());
  v1::QueueState q;
  REQUIRE(eventually(60, [&] {
    q = d.get_json<v1::QueueState>("/api/v1/queue");
    return q.jobs_size() == 1 && q.jobs(0).state() == "done";
  }));
  int64_t run = q.jobs(0).run_id();

  // As the API's 403 advises: plan and apply with the CLI on the daemon's store.
  auto store = (dir.path() / "perf.db").string();
  auto plans = cli_actions(dir.path(), "plan " + std::to_string(run) + " --store " + store);
  REQUIRE(plans.plans_size() > 0);
  int64_t plan = plans.plans(0).id();
  auto applied = cli_actions(dir.path(), "apply " + std::to_string(plan) + " --store " + store);
  REQUIRE(applied.applies_size() == 1);
  CHECK(fs::path(applied.applies(0).out_dir()) ==
        dir.path() / "perfsage-actions" / ("plan-" + std::to_string(plan)));
  CHECK_FALSE(fs::exists(runs / "bert" / "perfsage-actions"));
  // Action output inside the watched folder (an older perfsage's default, or asked for with
  // --out) is no run either; nor is a run in which nothing is recognised.
  dir.write("runs/bert/perfsage-actions/plan-9/fusion_switch.cfg", "{}\n");
  dir.write("runs/bert/r2/notes.txt", "nothing a profiler wrote\n");
  REQUIRE(eventually(60, [&] {
    q = d.get_json<v1::QueueState>("/api/v1/queue");
    return q.jobs_size() == 2 && q.jobs(0).state() == "failed";
  }));
  INFO(q.DebugString());
  CHECK(q.jobs(0).inputs(0) == (runs / "bert" / "r2").string());
  CHECK_THAT(q.jobs(0).reason(), Catch::Contains("nothing recognised: 1 file in"));
  CHECK(q.jobs(0).run_id() == 0);
  CHECK(q.pending_size() == 0);
  // The job's history is its one real run, every finding still open.
  auto listed = d.get_json<v1::RunList>("/api/v1/runs");
  REQUIRE(listed.runs_size() == 1);
  CHECK(listed.runs(0).id() == run);
  auto history = d.get_json<v1::JobHistory>("/api/v1/jobs/bert/history");
  CHECK(history.runs_size() == 1);
  REQUIRE(history.findings_size() > 0);
  for (const auto& f : history.findings()) CHECK(f.open());
  CHECK(d.kill(SIGTERM) == 0);
}
