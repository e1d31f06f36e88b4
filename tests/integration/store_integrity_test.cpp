// The real `perfsage` binary killed with SIGKILL during ingest and during analysis, three of it
// ingesting the same inputs at once, a write-protected store and a full disk: the store stays
// consistent (integrity_check ok) and the next analysis is complete and correct.
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "cli_support.h"
#include "damaged_store.h"
#include "full_disk_vfs.h"
#include "process_support.h"
#include "store/database.h"

using namespace perfsage::test;

namespace {

// A Kineto trace of `kernels` kernel launches (CPU op, runtime call, kernel) over 20 profiler
// steps: big enough that an ingest writes over 1 MiB to the log before it commits.
// 30,000 launches: 13.8 MB, some 10 MB in the log when the ingest pauses before its commit.
std::filesystem::path write_trace(const TempDir& dir, int kernels) {
  std::ostringstream t;
  t << R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB",)"
    << R"("totalGlobalMem": 85000000000, "computeMajor": 8, "computeMinor": 0, "numSms": 108}],)"
    << "\n\"traceEvents\": [\n";
  int per_step = kernels / 20;
  int64_t ts = 1000;
  for (int step = 0; step < 20; ++step) {
    t << R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" << step
      << R"(", "pid": 1, "tid": 1, "ts": )" << ts << R"(, "dur": )" << per_step * 10 << "},\n";
    for (int i = 0; i < per_step; ++i) {
      int64_t id = static_cast<int64_t>(step) * per_step + i + 1;
      t << R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm)" << i % 37
        << R"(", "pid": 1, "tid": 1, "ts": )" << ts << R"(, "dur": 8, "args": {"External id": )"
        << id << "}},\n"
        << R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,)"
        << R"( "ts": )" << ts + 1 << R"(, "dur": 4, "args": {"External id": )" << id
        << R"(, "correlation": )" << id << "}},\n"
        << R"({"ph": "X", "cat": "kernel", "name": "sgemm_)" << i % 53
        << R"(", "pid": 0, "tid": 7, "ts": )" << ts + 3 << R"(, "dur": )" << 2 + i % 7
        << R"(, "args": {"External id": )" << id << R"(, "correlation": )" << id
        << R"(, "device": 0, "stream": 7}})" << (step == 19 && i + 1 == per_step ? "\n" : ",\n");
      ts += 10;
    }
  }
  t << "]}\n";
  return dir.write("train.pt.trace.json", t.str());
}

// What two analyses of the same inputs must agree on.
std::string essence(const perfsage::v1::AnalysisReport& r) {
  std::ostringstream s;
  const auto& run = r.run();
  s << run.framework() << " " << run.device() << " " << run.chip() << " ranks " << run.ranks()
    << " steps " << run.steps() << " step " << run.step_time_us() << " device "
    << run.device_time_us() << " kernels " << run.kernels() << " findings";
  for (const auto& f : r.recommendations()) s << " " << f.id();
  return s.str();
}

std::string integrity(const std::string& store) {
  perfsage::store::Database db(store);
  auto st = db.prepare("PRAGMA integrity_check");
  REQUIRE(st.step());
  return st.text(0);
}

int64_t count(const std::string& store, const std::string& sql) {
  perfsage::store::Database db(store);
  auto st = db.prepare(sql);
  REQUIRE(st.step());
  return st.int64(0);
}

// What perfsage run with PERFSAGE_TEST_PAUSE_AT=<stage> says when it has reached the stage and
// waits to be killed (app/analysis.cpp, test_pause_at): the kills below wait for that point,
// never for a time or a state that the child could pass while this process is descheduled.
std::string pause_marker(const std::string& stage) {
  return "perfsage: paused at " + stage + "\n";
}

struct Fixture {
  TempDir dir;
  std::filesystem::path trace = write_trace(dir, 30000);
  std::string store = (dir.path() / "s.db").string();
  // The same trace in every case: analysed once, in memory, for all of them.
  std::string reference = [this] {
    static const std::string analysed = essence(analyze_json({trace.string()}));
    return analysed;
  }();
};

perfsage::v1::AnalysisReport analyze_stored(const Fixture& f, std::string* err = nullptr) {
  auto r = run_perfsage({"analyze", f.trace.string(), "--store", f.store, "--format", "json"},
                        f.dir.path());
  INFO(r.err);
  REQUIRE(r.code == 0);
  if (err) *err = r.err;
  return parse_report(r.out);
}

}  // namespace

TEST_CASE("kill -9 during ingest stores nothing; the next analysis is complete and correct") {
  Fixture f;
  {
    Child c({"analyze", f.trace.string(), "--store", f.store, "-v"}, f.dir.path(), As::self,
            {"PERFSAGE_TEST_PAUSE_AT=ingest"});
    // Every record written, the log holding them, and the ingest not committed: the child waits
    // there until it is killed, however late this process gets to run.
    REQUIRE(c.wait_for_stderr(pause_marker("ingest")));
    CHECK(std::filesystem::file_size(f.store + "-wal") > (1u << 20));
    c.kill9();
    CHECK(c.wait() == 128 + SIGKILL);
    REQUIRE(c.err().find("] ingest: ") == std::string::npos);
  }
  CHECK(integrity(f.store) == "ok");
  CHECK(count(f.store, "SELECT count(*) FROM runs") == 0);
  std::string err;
  CHECK(essence(analyze_stored(f, &err)) == f.reference);
  CHECK(err.find("again") == std::string::npos);
  CHECK(count(f.store, "SELECT count(*) FROM runs WHERE status = 'analyzed'") == 1);
}

TEST_CASE("kill -9 during analysis: the next analysis redoes it, says so and is correct") {
  Fixture f;
  {
    Child c({"analyze", f.trace.string(), "--store", f.store, "-v"}, f.dir.path(), As::self,
            {"PERFSAGE_TEST_PAUSE_AT=analysis"});
    // The ingest committed and every analyzer wrote its tables, but the run is not marked
    // analysed: the most the next analysis has to redo.
    REQUIRE(c.wait_for_stderr(pause_marker("analysis")));
    c.kill9();
    CHECK(c.wait() == 128 + SIGKILL);
    INFO("stderr:\n" << c.err());  // the --verbose log goes to stderr, never into the report
    REQUIRE(c.err().find("] ingest: ") != std::string::npos);
    REQUIRE(c.err().find("analyzer summary") != std::string::npos);
  }
  CHECK(integrity(f.store) == "ok");
  REQUIRE(count(f.store, "SELECT count(*) FROM runs WHERE status = 'ingested'") == 1);
  std::string err;
  CHECK(essence(analyze_stored(f, &err)) == f.reference);
  CHECK_THAT(err,
             Catch::Contains("was stored but its analysis did not finish; analysing it again"));
  CHECK(count(f.store, "SELECT count(*) FROM runs WHERE status = 'analyzed'") == 1);
  // Complete now: reused as it is.
  CHECK(essence(analyze_stored(f, &err)) == f.reference);
  CHECK_THAT(err, Catch::Contains("already stored as run 1"));
  CHECK(integrity(f.store) == "ok");
}

TEST_CASE("three concurrent ingests of the same inputs store one run, and wait for it") {
  Fixture f;
  std::vector<std::unique_ptr<Child>> children;
  for (int i = 0; i < 3; ++i) {
    children.push_back(std::make_unique<Child>(
        std::vector<std::string>{"ingest", f.trace.string(), "--store", f.store}, f.dir.path()));
  }
  int reused = 0;
  for (auto& c : children) {
    int code = c->wait();
    INFO(c->err());
    CHECK(code == 0);
    reused += c->err().find("already stored as run 1") != std::string::npos;
  }
  CHECK(reused == 2);
  CHECK(count(f.store, "SELECT count(*) FROM runs") == 1);
  CHECK(count(f.store, "SELECT count(*) FROM runs WHERE status = 'analyzed'") == 1);
  CHECK(integrity(f.store) == "ok");
  CHECK(essence(analyze_stored(f)) == f.reference);
}

TEST_CASE("a write-protected store: a stored run is analysed, new inputs are refused by name") {
  Fixture f;
  analyze_stored(f);
  // The store's folder and file write-protected (the tests may run as root, which permissions
  // do not stop: the children then run as nobody).
  auto ro = f.dir.path() / "ro";
  std::filesystem::create_directory(ro);
  std::filesystem::rename(f.store, ro / "s.db");
  std::string store = (ro / "s.db").string();
  ::chmod(store.c_str(), 0444);
  ::chmod(ro.c_str(), 0555);
  ::chmod(f.dir.path().c_str(), 0755);
  auto r = run_perfsage({"analyze", f.trace.string(), "--store", store, "--format", "json"},
                        f.dir.path(), As::unprivileged);
  INFO(r.err);
  CHECK(r.code == 0);
  if (r.code == 0) CHECK(essence(parse_report(r.out)) == f.reference);
  auto q = run_perfsage({"query", "--store", store, "SELECT status FROM runs"}, f.dir.path(),
                        As::unprivileged);
  CHECK(q.out == "status\nanalyzed\n");
  auto other = f.dir.write("other/t.pt.trace.json", read_text(f.trace) + " ");
  auto n =
      run_perfsage({"ingest", other.string(), "--store", store}, f.dir.path(), As::unprivileged);
  CHECK(n.code != 0);
  CHECK_THAT(n.err, Catch::Contains("store " + store + " is read-only"));
  ::chmod(ro.c_str(), 0755);
  ::chmod(store.c_str(), 0644);
  CHECK(integrity(store) == "ok");
  CHECK(count(store, "SELECT count(*) FROM runs") == 1);
}

TEST_CASE("a full disk at the checkpoint is reported, and the next command finishes the copy") {
  auto& disk = FullDiskVfs::install();
  TempDir dir;
  auto trace = write_trace(dir, 3000);
  auto store = (dir.path() / "s.db").string();
  { perfsage::store::Database create(store); }  // a new store writes its header at once
  disk.set_full(true);
  auto r = run_command("ingest", {trace.string(), "--store", store});
  disk.set_full(false);
  INFO(r.err);
  CHECK(r.code == 0);  // the run is safe in the log
  CHECK_THAT(r.err, Catch::Contains(store + "-wal could not be copied into " + store) &&
                        Catch::Contains("full"));
  auto again = run_command("analyze", {trace.string(), "--store", store});
  CHECK(again.code == 0);
  CHECK(again.err.find("could not be copied") == std::string::npos);
  CHECK(integrity(store) == "ok");
}

TEST_CASE("the write-ahead log stays a few MiB, and no log is left behind") {
  auto& disk = FullDiskVfs::install();
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  auto example = (source_dir() / "examples/resnet50_rank0_ascend_pt").string();
  disk.reset_largest_log();
  auto r = run_command("analyze", {example, "--store", store});
  INFO(r.err);
  REQUIRE(r.code == 0);
  // Before: 55 MB of log for a 5.8 MB store (SQLite checkpointed every 1000 pages, 64 MiB).
  INFO("largest log " << disk.largest_log() << " bytes, store " << std::filesystem::file_size(store)
                      << " bytes");
  CHECK(disk.largest_log() < 2 * static_cast<int64_t>(std::filesystem::file_size(store)));
  CHECK(disk.largest_log() <= 8 << 20);
  CHECK_FALSE(std::filesystem::exists(store + "-wal"));
}

TEST_CASE("a full disk: a stored run is read and reported again; only its results are not kept") {
  auto& disk = FullDiskVfs::install();
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  auto example = (source_dir() / "examples/resnet50_rank0_ascend_pt").string();
  auto first = run_command("analyze", {example, "--store", store, "--format", "json"});
  REQUIRE(first.code == 0);
  disk.set_full(true, true);  // no room for the file nor its log
  auto again = run_command("analyze", {example, "--store", store, "--format", "json"});
  disk.set_full(false);
  INFO(again.err);
  CHECK(again.code == 0);  // before: 5, "database or disk is full", no report
  CHECK(disk.failed_writes() > 0);
  CHECK_THAT(again.err, Catch::Contains("the disk holding " + store + " is full"));
  auto a = parse_report(first.out), b = parse_report(again.out);
  CHECK(essence(b) == essence(a));
  CHECK(b.recommendations_size() > 0);
  CHECK(integrity(store) == "ok");
}

TEST_CASE("a damaged store takes no new run, says why, and its stored runs are still read") {
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  auto example = (source_dir() / "examples/resnet50_rank0_ascend_pt").string();
  REQUIRE(run_command("analyze", {example, "--store", store}).code == 0);
  // Damage an index nothing of perfsage reads: quick_check fails, the runs stay readable.
  damage_unused_index(store);
  auto other = dir.write("other/kernel_details.csv",
                         "Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
                         "MatMul_1,MatMul,AI_CORE,1000,50\n");
  auto refused = run_command("analyze", {other.parent_path().string(), "--store", store});
  INFO(refused.err);
  CHECK(refused.code == 5);
  CHECK_THAT(refused.err, Catch::Contains("store " + store + " is damaged (SQLite's quick_check") &&
                              Catch::Contains("no new run is written into it"));
  CHECK(count(store, "SELECT count(*) FROM runs") == 1);
  auto stored = run_command("analyze", {example, "--store", store});
  INFO(stored.err);
  CHECK(stored.code == 0);
  CHECK_THAT(stored.out, Catch::Contains("Recommendations"));
}
