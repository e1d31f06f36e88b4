// `perfsage actions` end to end: a job is analysed, its findings planned and applied, the job
// runs again with the rewritten model, and the next analysis judges the action; a rollback
// removes exactly what the apply wrote and the audit trail names every step with its files.
// The findings come from a fixture pack written below (graph clean-up rules proposing
// onnx_rewrite passes); the passes check their matches themselves.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>

#include "actions/files.h"
#include "app/report.h"
#include "chromium_support.h"
#include "cli_support.h"
#include "perfsage/v1/action_plan.pb.h"

using namespace perfsage;
using namespace perfsage::test;
namespace fs = std::filesystem;
namespace v1 = perfsage::v1;

namespace {

constexpr const char* kFixturePack = R"(name: graph_cleanup_fixture
version: 0.1.0
engine: ">=0.1"
description: Test fixture proposing ONNX clean-up rewrites for every candidate node.
license: Apache-2.0
maintainers: [perfsage-tests]
maturity: sandbox
applies_to: [cpu]
uses: [graph_node]
rules:
  - id: foldable_batchnorm
    title: "BatchNormalization {?name} may fold into its Conv"
    severity: low
    category: model
    when: |
      (graph_node (type BatchNormalization) (name ?name))
    message: "{?name} is an inference BatchNormalization"
    subjects: [name]
    action:
      kind: onnx_rewrite
      pass: fold_batchnorm
  - id: cast_round_trip
    title: "Cast {?name} may end a round trip"
    severity: low
    category: model
    when: |
      (graph_node (type Cast) (name ?name))
    message: "{?name} casts"
    subjects: [name]
    action:
      kind: onnx_rewrite
      pass: remove_cast_round_trip
)";

CommandResult run_actions(std::vector<std::string> args) {
  std::ostringstream out, err;
  CommandResult r;
  r.code = cli::run_actions(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

template <class M>
M parse(const std::string& json) {
  M m;
  INFO(json.substr(0, 2000));
  REQUIRE(google::protobuf::util::JsonStringToMessage(json, &m).ok());
  return m;
}

struct Job {
  TempDir dir;
  fs::path model, pack, store;
  Job() {
    model = dir.path() / "models" / "small_cnn.onnx";
    fs::create_directories(model.parent_path());
    fs::copy_file(source_dir() / "tests/fixtures/graph/small_cnn.onnx", model);
    pack = dir.path() / "packs" / "graph_cleanup_fixture";
    dir.write("packs/graph_cleanup_fixture/pack.yaml", kFixturePack);
    store = dir.path() / "s.db";
  }
  v1::AnalysisReport analyze(const fs::path& input) {
    return analyze_json({input.string(), "--store", store.string(), "--kb", pack.string()});
  }
  v1::PlannedAction plan_onnx() {
    auto r = run_actions({"plan", model.string(), "--store", store.string(), "--format", "json"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    auto list = parse<v1::ActionList>(r.out);
    REQUIRE(list.plans_size() == 1);
    REQUIRE(list.plans(0).kind() == "onnx_rewrite");
    return list.plans(0);
  }
  v1::ActionApply apply(int64_t id, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"apply",        std::to_string(id), "--store",
                                     store.string(), "--format",         "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_actions(args);
    INFO(r.err);
    REQUIRE(r.code == 0);
    auto list = parse<v1::ActionList>(r.out);
    REQUIRE(list.applies_size() == 1);
    return list.applies(0);
  }
};

}  // namespace

namespace {

// The HTML report of the judging run shows each verdict as the text and JSON reports do: before,
// after, change, noise band and verdict (drawn by the report's script, so read from the DOM
// headless Chromium leaves).
void check_html_verdicts(const Job& job, const fs::path& input, const v1::AnalysisReport& json) {
  auto html = job.dir.path() / "report.html";
  auto r = run_command("analyze", {input.string(), "--store", job.store.string(), "--kb",
                                   job.pack.string(), "--format", "html", "-o", html.string()});
  REQUIRE(r.code == 0);
  if (chromium().empty()) {
    WARN("skipped the HTML verdicts: chromium is not installed (scripts/setup installs it)");
    perfsage::test::note_skipped();  // reported to ctest as skipped, never passed
    return;
  }
  auto page = load_page(job.dir.path(), "file://" + html.string());
  INFO(console_lines(page.log));
  CHECK(console_lines(page.log).empty());
  INFO(page.dom.substr(0, 4000));
  CHECK_THAT(page.dom, Catch::Contains("Applied actions judged on this run (3)"));
  CHECK(count_in(page.dom, "<tr class=\"verdict-row\"") == 3);
  for (const auto& v : json.action_verdicts()) {
    std::string row = "data-apply-id=\"" + std::to_string(v.apply_id()) + "\" data-finding-id=\"" +
                      v.finding() + "\"";
    auto at = page.dom.find(row);
    REQUIRE(at != std::string::npos);
    std::string tr = page.dom.substr(at, page.dom.find("</tr>", at) - at);
    CHECK_THAT(tr, Catch::Contains(">" + v.verdict() + "</td>"));
    if (v.verdict() == "helped") {  // 2 nodes -> 1, an exact count: no noise
      CHECK_THAT(tr, Catch::Contains("<td class=\"num before\">2 nodes</td>"));
      CHECK_THAT(tr, Catch::Contains("<td class=\"num after\">1 nodes</td>"));
      CHECK_THAT(tr, Catch::Contains("<td class=\"num change\">-1 nodes (-50.0 %)</td>"));
      CHECK_THAT(tr, Catch::Contains("<td class=\"num band\">± 0 nodes</td>"));
    }
  }
}

}  // namespace

TEST_CASE("actions: analyse, plan, apply, run again with the rewritten model, verdict") {
  Job job;
  auto input_sha = actions::sha256_file(job.model);
  auto first = job.analyze(job.model);
  REQUIRE(findings(first, "graph_cleanup_fixture", "foldable_batchnorm").size() == 1);
  REQUIRE(findings(first, "graph_cleanup_fixture", "cast_round_trip").size() == 2);

  auto plan = job.plan_onnx();
  CHECK(plan.run_id() == first.run().id());
  CHECK(plan.job() == "small_cnn");
  CHECK(plan.steps_size() == 3);
  CHECK(plan.has_inexact());  // float -> float16 -> float is only proposed
  std::string notes;
  for (const auto& n : plan.notes()) notes += n + "\n";
  CHECK_THAT(notes, Catch::Contains("folded BatchNormalization") &&
                        Catch::Contains("proposed, not applied without --allow-inexact"));

  auto applied = job.apply(plan.id());
  REQUIRE(applied.files_size() == 1);
  fs::path rewritten = applied.files(0).path();
  CHECK(rewritten.filename() == "small_cnn.onnx");
  CHECK(rewritten.parent_path().parent_path().filename() == "perfsage-actions");
  CHECK(actions::sha256_file(job.model) == input_sha);
  CHECK(job.apply(plan.id()).already_applied());  // applying twice changes nothing

  // The job runs again with the rewritten model: same job name, the BN finding is gone.
  auto second = job.analyze(rewritten);
  CHECK(second.run().job() == "small_cnn");
  CHECK(findings(second, "graph_cleanup_fixture", "foldable_batchnorm").empty());
  // Its analysis judged the applied action: the verdicts are in the report (JSON and text).
  REQUIRE(second.action_verdicts_size() == 3);
  for (const auto& v : second.action_verdicts()) {
    CHECK(v.apply_id() == applied.id());
    CHECK(v.before_run() == first.run().id());
  }
  auto text = run_command("analyze", {rewritten.string(), "--store", job.store.string(), "--kb",
                                      job.pack.string()})
                  .out;
  CHECK_THAT(
      text, Catch::Contains("Applied actions judged on this run (3)") && Catch::Contains("helped"));
  check_html_verdicts(job, rewritten, second);
  auto r = run_actions({"verify", "--store", job.store.string(), "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  auto verdicts = parse<v1::ActionList>(r.out);
  REQUIRE(verdicts.verdicts_size() == 3);
  std::map<std::string, int> by_verdict;
  for (const auto& v : verdicts.verdicts()) {
    INFO(v.finding() << " " << v.verdict() << ": " << v.detail());
    CHECK(v.after_run() == second.run().id());
    ++by_verdict[v.verdict()];
    if (v.verdict() == "helped") {
      CHECK_FALSE(v.finding_present());
      CHECK(v.metric() == "nodes the rewrite edits, in the graph");
      CHECK(v.before() == 2);  // conv1 and bn1 in the first model
      CHECK(v.after() == 1);   // bn1 folded away, conv1 stays
    }
  }
  // The Casts stay: the round trip through float16 is inexact and was not allowed; the second
  // Cast's finding named a node where the pass starts no round trip.
  CHECK(by_verdict == std::map<std::string, int>{{"helped", 1}, {"not_applied", 2}});
  // The verdicts are stored and listed with the apply.
  auto listed = run_actions({"list", "--store", job.store.string()});
  CHECK_THAT(listed.out,
             Catch::Contains("helped") && Catch::Contains("apply " + std::to_string(applied.id())));
}

TEST_CASE("actions: rollback removes what the apply wrote; the audit trail keeps it all") {
  Job job;
  job.analyze(job.model);
  auto plan = job.plan_onnx();
  fs::path out = job.dir.path() / "rewritten";
  auto applied = job.apply(plan.id(), {"--out", out.string(), "--allow-inexact"});
  CHECK(applied.allow_inexact());
  fs::path written = applied.files(0).path();
  CHECK(written == out / "small_cnn.onnx");
  std::string bytes;
  {
    std::ifstream in(written, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  // A changed file: the rollback refuses and removes nothing.
  std::ofstream(written, std::ios::binary | std::ios::app) << "edited";
  auto refused =
      run_actions({"rollback", std::to_string(applied.id()), "--store", job.store.string()});
  CHECK(refused.code == cli::kExitUsage);
  CHECK_THAT(refused.err, Catch::Contains("changed since the apply"));
  CHECK(fs::exists(written));
  std::ofstream(written, std::ios::binary | std::ios::trunc) << bytes;
  auto rolled =
      run_actions({"rollback", std::to_string(applied.id()), "--store", job.store.string()});
  INFO(rolled.err);
  CHECK(rolled.code == 0);
  CHECK_FALSE(fs::exists(written));
  CHECK_FALSE(fs::exists(out));

  auto audit = run_actions({"audit", "--store", job.store.string(), "--format", "json"});
  REQUIRE(audit.code == 0);
  auto trail = parse<v1::ActionAudit>(audit.out);
  std::vector<std::string> events;
  for (const auto& e : trail.entries()) events.push_back(e.event());
  CHECK(events == std::vector<std::string>{"plan", "apply", "rollback_refused", "rollback"});
  const auto& apply = trail.entries(1);
  CHECK(apply.apply_id() == applied.id());
  CHECK(apply.findings_size() == 3);
  REQUIRE(apply.files_size() == 1);
  CHECK(apply.files(0).sha256() == applied.files(0).sha256());
  CHECK_FALSE(apply.actor().empty());
  auto text = run_actions({"audit", "--store", job.store.string()});
  CHECK_THAT(text.out, Catch::Contains(applied.files(0).sha256() + "  " + written.string()));

  // Bad ids are usage errors naming what is missing.
  auto missing = run_actions({"apply", "999", "--store", job.store.string()});
  CHECK(missing.code == cli::kExitUsage);
  CHECK_THAT(missing.err, Catch::Contains("no planned action 999"));
  CHECK(run_actions({"apply", "x", "--store", job.store.string()}).code == cli::kExitUsage);
  CHECK(run_actions({"frobnicate"}).code == cli::kExitUsage);
}

TEST_CASE("actions: the same one-step Ascend profile again is judged 'unknown', not guessed") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  auto sample = samples_dir() / "ascend/mstt/kernel_details_arith_util.csv";
  auto first = analyze_json({sample.string(), "--store", store, "--job", "train"});
  auto plan =
      run_actions({"plan", std::to_string(first.run().id()), "--store", store, "--format", "json"});
  INFO(plan.err);
  REQUIRE(plan.code == 0);
  auto plans = parse<v1::ActionList>(plan.out);
  const v1::PlannedAction* aoe = nullptr;
  for (const auto& p : plans.plans()) {
    if (p.kind() == "aoe") aoe = &p;
  }
  REQUIRE(aoe);
  REQUIRE(aoe->files_size() == 1);
  auto applied = run_actions({"apply", std::to_string(aoe->id()), "--store", store, "--out",
                              (dir.path() / "aoe").string()});
  REQUIRE(applied.code == 0);
  // The job runs again unchanged (a copy of the profile: a new run of the same job).
  auto copy = dir.path() / "again" / sample.filename();
  fs::create_directories(copy.parent_path());
  fs::copy_file(sample, copy);
  auto second = analyze_json({copy.string(), "--store", store, "--job", "train"});
  CHECK(second.run().id() != first.run().id());
  // The next analysis of the job judged the action; verify judges it again, the same way.
  REQUIRE(second.action_verdicts_size() == aoe->steps_size());
  auto r = run_actions(
      {"verify", "--store", store, "--run", std::to_string(second.run().id()), "--format", "json"});
  REQUIRE(r.code == 0);
  auto verdicts = parse<v1::ActionList>(r.out);
  REQUIRE(verdicts.verdicts_size() == aoe->steps_size());
  for (const auto& v : verdicts.verdicts()) {
    INFO(v.detail());
    // One recorded step per run: no step-to-step spread, so no band and no guess.
    CHECK(v.verdict() == "unknown");
    CHECK_THAT(v.metric(), Catch::StartsWith("the finding's "));  // the rule's own measure
    CHECK(v.before() == Approx(v.after()));
    CHECK(v.before() > 0);
    CHECK_FALSE(v.has_noise());
    CHECK_THAT(v.detail(), Catch::Contains("noise band unknown"));
    CHECK(v.finding_present());
  }
}

TEST_CASE("actions: steps that all last the same time give no noise band, so no verdict") {
  // The example profile (examples/make_resnet_ascend_example.py) records three steps of exactly
  // 57.995 ms: a spread of zero is an artefact of the source, not a measured band of zero.
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  auto example = source_dir() / "examples/resnet50_rank0_ascend_pt";
  auto first = analyze_json({example.string(), "--store", store, "--job", "resnet"});
  REQUIRE(first.run().steps() == 3);
  auto plan =
      run_actions({"plan", std::to_string(first.run().id()), "--store", store, "--format", "json"});
  REQUIRE(plan.code == 0);
  int64_t aoe = 0;
  auto plans = parse<v1::ActionList>(plan.out);
  for (const auto& p : plans.plans()) {
    if (p.kind() == "aoe") aoe = p.id();
  }
  REQUIRE(aoe > 0);
  REQUIRE(run_actions({"apply", std::to_string(aoe), "--store", store, "--out",
                       (dir.path() / "aoe").string()})
              .code == 0);
  auto copy = dir.path() / "again" / example.filename();
  fs::create_directories(copy.parent_path());
  fs::copy(example, copy, fs::copy_options::recursive);
  auto second = analyze_json({copy.string(), "--store", store, "--job", "resnet"});
  REQUIRE(second.action_verdicts_size() == 1);
  const auto& v = second.action_verdicts(0);
  INFO(v.detail());
  CHECK(v.verdict() == "unknown");
  CHECK(v.before() == Approx(v.after()));
  CHECK_FALSE(v.has_noise());
  CHECK_THAT(v.detail(), Catch::Contains("every recorded step of both runs lasts the same time"));
}

TEST_CASE("actions: the built-in graph_cleanup findings on an exported ResNet block, end to end") {
  // tests/fixtures/graph/structure/resnet_block.onnx: torch.onnx.export of a small ResNet-style
  // model with BatchNorm kept, 10 Identity nodes and an x.half().float() round trip. No fixture
  // pack: the findings are the built-in graph_cleanup pack's.
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  auto model = dir.path() / "m" / "resnet_block.onnx";
  fs::create_directories(model.parent_path());
  fs::copy_file(source_dir() / "tests/fixtures/graph/structure/resnet_block.onnx", model);
  auto first = analyze_json({model.string(), "--store", store});
  CHECK(findings(first, "graph_cleanup", "fold_batchnorm").size() == 3);
  CHECK(findings(first, "graph_cleanup", "identity_node").size() == 10);
  CHECK(findings(first, "graph_cleanup", "cast_round_trip_precision").size() == 1);
  auto r = run_actions({"plan", model.string(), "--store", store, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  auto plans = parse<v1::ActionList>(r.out);
  REQUIRE(plans.plans_size() == 1);
  const auto& plan = plans.plans(0);
  CHECK(plan.kind() == "onnx_rewrite");
  CHECK(plan.steps_size() == 14);
  std::map<std::string, int> states;
  for (const auto& s : plan.steps()) {
    ++states[s.rewrite()];
    if (s.rule() == "fold_batchnorm") CHECK(s.rewrite_nodes_size() == 2);  // Conv and its BN
  }
  CHECK(states == std::map<std::string, int>{{"applied", 13}, {"inexact", 1}});
  auto applied =
      run_actions({"apply", std::to_string(plan.id()), "--store", store, "--format", "json"});
  REQUIRE(applied.code == 0);
  auto apply = parse<v1::ActionList>(applied.out).applies(0);
  fs::path rewritten = apply.files(0).path();

  // The next run of the job: the rewritten model. Its analysis judges the rewrite.
  auto second = analyze_json({rewritten.string(), "--store", store});
  CHECK(second.run().job() == first.run().job());
  CHECK(findings(second, "graph_cleanup", "fold_batchnorm").empty());
  CHECK(findings(second, "graph_cleanup", "identity_node").empty());
  CHECK(findings(second, "graph_cleanup", "cast_round_trip_precision").size() == 1);
  std::map<std::string, int> verdicts;
  for (const auto& v : second.action_verdicts()) {
    INFO(v.finding() << ": " << v.detail());
    ++verdicts[v.verdict()];
    if (v.verdict() == "helped") CHECK(v.after() < v.before());
  }
  CHECK(verdicts == std::map<std::string, int>{{"helped", 13}, {"not_applied", 1}});
}
