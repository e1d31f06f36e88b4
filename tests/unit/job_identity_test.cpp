// One job identity (app/job_identity.h) for every path a run takes: the CLI's analyze, the
// daemon's watcher (its {name} job template), the API's submit (a path normalised the same way)
// and the fingerprint both sides look stored runs up by.
#include "app/job_identity.h"

#include <catch2/catch.hpp>

#include "app/analysis.h"
#include "app/knowledge.h"
#include "app_knowledge.h"
#include "daemon/run_layout.h"
#include "store/database.h"
#include "store/run_registry.h"
#include "test_support.h"

using namespace perfsage;
namespace fs = std::filesystem;

TEST_CASE("job names strip the profilers' extensions the same way everywhere") {
  CHECK(app::job_from_name("rank0.pt.trace.json.gz") == "rank0");
  CHECK(app::job_from_name("rank0.pt.trace.json") == "rank0");
  CHECK(app::job_from_name("kernel_details.csv") == "kernel_details");
  CHECK(app::job_from_name("model.onnx") == "model");
  CHECK(app::job_from_name("PROF_000001_20260101") == "PROF_000001_20260101");
  CHECK(app::job_from_name(".gz") == ".gz");  // nothing left: the name stays
  daemon::WatchRoot root;
  root.path = "/data/one";
  root.runs = {"*.json.gz"};
  daemon::RunLayout layout({root});
  auto loc = layout.locate("/data/one/resnet.pt.trace.json.gz");
  REQUIRE(loc);
  CHECK(loc->job == app::default_job({"/data/one/resnet.pt.trace.json.gz"}));
}

TEST_CASE("the same run reached by the CLI, the watcher and submit is one job and fingerprint") {
  test::TempDir dir;
  const std::string trace = R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 10}]})";
  fs::path file = dir.write("runs/resnet.pt.trace.json", trace);
  // Spellings a user, a watcher and a client give of the same input.
  std::vector<fs::path> spellings = {file, dir.path() / "runs" / "." / "resnet.pt.trace.json",
                                     dir.path() / "runs" / ".." / "runs" / "resnet.pt.trace.json"};
  const std::string fp = app::input_fingerprint({file});
  for (const auto& s : spellings) {
    INFO(s);
    CHECK(app::normal_input(s) == file);
    CHECK(app::input_fingerprint({s}) == fp);
    CHECK(app::default_job(app::normal_inputs({s})) == "resnet");
  }
  // The watcher's job for the file, under a root given with a trailing separator.
  daemon::WatchRoot root;
  root.path = app::normal_input(dir.path() / "runs" / "");
  root.runs = {"*.json"};
  auto loc = daemon::RunLayout({root}).locate(app::normal_input(spellings[2]));
  REQUIRE(loc);
  CHECK(loc->job == "resnet");
  // The CLI's analysis stores the run under that job and fingerprint.
  store::Database db(":memory:");
  auto knowledge = test::shipped_knowledge();
  app::AnalysisRequest req;
  req.inputs = {spellings[1]};
  auto outcome = app::analyze(db, req, *knowledge, {});
  REQUIRE(outcome);
  auto run = store::load_run(db, outcome->run_id);
  REQUIRE(run);
  CHECK(run->job == "resnet");
  CHECK(run->fingerprint == fp);
}
