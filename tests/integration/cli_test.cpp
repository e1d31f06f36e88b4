// The perfsage command line: exit codes, bad input, stores, formats, output files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "cli_support.h"
#include "store/database.h"
#include "store/run_registry.h"
#include "store/schema.h"

using namespace perfsage::test;

namespace {
std::string kernel_details_csv() {
  return "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),"
         "Block Dim,Output Data Types\n"
         "1,trans_Cast_5,Cast,AI_CPU,1699529622790614.8,198.5,0,1,UINT64\n"
         "1,MatMul3,MatMul,AI_CORE,1699529622790900.1,700.0,0,24,FLOAT16\n";
}

int64_t count_rows(const std::string& store, const std::string& table) {
  perfsage::store::Database db(store);
  auto st = db.prepare("SELECT count(*) FROM " + table);
  st.step();
  return st.int64(0);
}
}  // namespace

TEST_CASE("bad usage exits 2 with a message") {
  CHECK(run_command("analyze", {}).code == 2);
  auto r = run_command("analyze", {"x.csv", "--format", "yaml"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--format"));
  CHECK(run_command("analyze", {"x.csv", "--fail-on", "urgent"}).code == 2);
  CHECK(run_command("analyze", {"x.csv", "--no-such-option"}).code == 2);
  CHECK(run_command("ingest", {"x.csv"}).code == 2);  // --store is required
}

TEST_CASE("a bad --fail-on value is one line naming it and the severities") {
  auto r = run_command("analyze", {"x.csv", "--fail-on", "urgent"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("'urgent' is not a severity") &&
                        Catch::Contains("critical, high, medium, low, info"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);  // not the whole help
  CHECK_THAT(r.err, !Catch::Contains("--verbose"));
}

TEST_CASE("a missing input exits 1 naming the path") {
  auto r = run_command("analyze", {"/nonexistent/trace.json"});
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("/nonexistent/trace.json"));
}

TEST_CASE("bad inputs exit 1 with a clear error and store nothing") {
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  struct Case {
    std::string name, content, expect;
  };
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage.push_back(static_cast<char>((i * 7919) % 256));
  std::vector<Case> cases = {
      {"empty.csv", "", "empty.csv"},
      {"trace.json", R"({"schemaVersion": 1, "traceEvents": [{"ph": "X", "name": "aten::mm", )",
       "trace.json"},
      {"kernel_details.csv", "Name,Type,Accelerator Core\nCast1,Cast,AI_CPU\n", "Duration"},
      {"garbage.json", garbage, "garbage.json"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      auto p = dir.write(c.name, c.content);
      auto r = run_command("analyze", {p.string(), "--store", store});
      INFO(r.err);
      CHECK(r.code == 1);
      CHECK_THAT(r.err, Catch::Contains(c.expect));
      CHECK(count_rows(store, "runs") == 0);
      CHECK(count_rows(store, "op_tasks") == 0);
      CHECK(count_rows(store, "host_events") == 0);
    }
  }
}

TEST_CASE("a failed ingest never loses runs already stored") {
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  auto good = dir.write("good/kernel_details.csv", kernel_details_csv());
  REQUIRE(run_command("ingest", {good.string(), "--store", store}).code == 0);
  auto bad = dir.write("bad/kernel_details.csv", "Name,Duration(us)\nx,notanumber\n");
  CHECK(run_command("ingest", {bad.string(), "--store", store}).code == 1);
  CHECK(count_rows(store, "runs") == 1);
  CHECK(count_rows(store, "op_tasks") == 2);
}

TEST_CASE("analyze prints a ranked report; json follows the proto schema") {
  TempDir dir;
  auto p = dir.write("run1/kernel_details.csv", kernel_details_csv());
  auto text = run_command("analyze", {p.string()});
  INFO(text.err);
  REQUIRE(text.code == 0);
  CHECK_THAT(text.out, Catch::Contains("Recommendations"));
  CHECK_THAT(text.out, Catch::Contains("trans_Cast_5"));

  auto report = analyze_json({p.string()});
  CHECK(report.run().device() == "ascend");
  CHECK(report.run().ops() == 2);
  REQUIRE(report.ingest_size() == 1);
  CHECK(report.ingest(0).records() == 2);
  auto aicpu = findings(report, "aicpu");
  REQUIRE(!aicpu.empty());
  CHECK(has_subject(*aicpu[0], "trans_Cast_5"));
  CHECK(aicpu[0]->estimated_gain_us() > 0);
  bool saw_aicpu_pack = false;
  for (const auto& pk : report.packs()) {
    if (pk.name() == "aicpu") {
      saw_aicpu_pack = true;
      CHECK(pk.status() == "ok");
      CHECK(pk.fired() >= 1);
    }
  }
  CHECK(saw_aicpu_pack);
}

TEST_CASE("--fail-on exits 3 when a finding reaches the severity") {
  TempDir dir;
  auto p = dir.write("run1/kernel_details.csv", kernel_details_csv());
  CHECK(run_command("analyze", {p.string(), "--fail-on", "info"}).code == 3);
  CHECK(run_command("analyze", {p.string(), "--fail-on", "critical"}).code == 0);
}

TEST_CASE("--kb restricts the packs that run") {
  TempDir dir;
  auto p = dir.write("run1/kernel_details.csv", kernel_details_csv());
  auto report = analyze_json({p.string(), "--kb", "gpu_runtime"});
  REQUIRE(report.packs_size() == 1);
  CHECK(report.packs(0).name() == "gpu_runtime");
  CHECK(findings(report, "aicpu").empty());
  CHECK(run_command("analyze", {p.string(), "--kb", "no_such_pack"}).code == 2);
}

TEST_CASE("a kept store reuses the run for the same inputs") {
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  auto p = dir.write("run1/kernel_details.csv", kernel_details_csv());
  auto first = analyze_json({p.string(), "--store", store});
  auto second = analyze_json({p.string(), "--store", store});
  CHECK(first.run().id() == second.run().id());
  CHECK(count_rows(store, "runs") == 1);
  CHECK(count_rows(store, "op_tasks") == 2);
  CHECK(first.recommendations_size() == second.recommendations_size());
}

TEST_CASE("the same folder typed with or without a trailing slash gives the same report") {
  TempDir dir;
  auto p = dir.write("run1/kernel_details.csv", kernel_details_csv());
  auto folder = p.parent_path().string();
  std::vector<std::string> spellings{folder, folder + "/", folder + "/./", folder + "//"};
  std::vector<std::string> outputs;
  for (const auto& s : spellings) {
    auto r = run_command("analyze", {s, "--format", "json"});
    INFO(s << "\n" << r.err);
    REQUIRE(r.code == 0);
    outputs.push_back(r.out);
  }
  auto report = parse_report(outputs.front());
  REQUIRE(report.run().inputs_size() == 1);
  CHECK(report.run().inputs(0) == folder);
  CHECK(report.run().job() == "run1");
  for (size_t i = 1; i < outputs.size(); ++i) {
    INFO(spellings[i]);
    CHECK(outputs[i] == outputs.front());
  }
}

TEST_CASE("unrecognised files inside a folder are reported, not fatal") {
  TempDir dir;
  dir.write("run1/kernel_details.csv", kernel_details_csv());
  dir.write("run1/notes.txt", "hello\n");
  auto report = analyze_json({(dir.path() / "run1").string()});
  bool unrecognised = false;
  for (const auto& f : report.ingest()) {
    if (f.collector() == "unrecognised") unrecognised = true;
  }
  CHECK(unrecognised);
  auto named = run_command("analyze", {(dir.path() / "run1/notes.txt").string()});
  CHECK(named.code == 1);
  CHECK_THAT(named.err, Catch::Contains("unrecognised format"));
}

TEST_CASE("lenient mode keeps good rows and reports what it skipped") {
  TempDir dir;
  auto p = dir.write("kernel_details.csv",
                     kernel_details_csv() + "1,Bad,Cast,AI_CPU,x,notanumber,0,1,INT64\n");
  CHECK(run_command("analyze", {p.string()}).code == 1);
  auto report = analyze_json({p.string(), "--lenient"});
  REQUIRE(report.ingest_size() == 1);
  CHECK(report.ingest(0).records() == 2);
  CHECK(report.ingest(0).skipped() == 1);
  REQUIRE(report.ingest(0).warnings_size() >= 1);
}

TEST_CASE("kb list and kb test cover the built-in packs") {
  auto list = run_command("kb", {"list", "--format", "json"});
  INFO(list.err);
  REQUIRE(list.code == 0);
  CHECK_THAT(list.out, Catch::Contains("\"aicpu\""));
  CHECK_THAT(list.out, Catch::Contains("\"gpu_runtime\""));
  auto test = run_command("kb", {"test"});
  INFO(test.out << test.err);
  CHECK(test.code == 0);
  auto one = run_command("kb", {"test", "aicpu"});
  CHECK(one.code == 0);
  CHECK(run_command("kb", {"test", "no_such_pack"}).code == 2);
}

TEST_CASE("a PROF_* folder (msprof layout) is one run with ops, steps, timeline and hardware") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  // The layout msprof writes; contents from the real samples where they exist (copied into a
  // temporary folder at run time), synthetic where not.
  const std::string prof = "PROF_000001_20231109194116771_ABCDEFGH/";
  auto copy = [&](const std::string& from, const std::string& to) {
    std::ifstream in(samples_dir() / from, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    dir.write(prof + to, text.str());
  };
  dir.write(prof + "device_0/info.json.0",
            R"({"platform_version":"5","DeviceInfo":[{"id":0,"ai_core_num":24,"aiv_num":48,)"
            R"("aic_frequency":"1800"}]})");
  dir.write(prof + "device_0/info.json.0.done", "");
  // Raw binary slices that msprof --export reads: counted once, never probed one by one.
  dir.write(prof + "device_0/data/ts_track.data.0.slice_0", std::string("\x01\x02\xff\x00", 4));
  dir.write(prof + "host/data/api_event.data.slice_0", std::string("\x00\x7f", 2));
  dir.write(prof + "mindstudio_profiler_output/op_summary_20231109194130.csv",
            "Device_id,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us),"
            "Task Wait Time(us),Block Dim,Input Data Types,Output Data Types\n"
            "0,trans_Cast_5,Cast,AI_CPU,1699529622790614.8,198.5,0,1,INT32,UINT64\n"
            "0,MatMul3,MatMul,AI_CORE,1699529622790900.1,700.0,0,24,FLOAT16;FLOAT16,FLOAT16\n"
            "0,Add4,Add,AI_VECTOR_CORE,1699529622791700.1,500.0,0,33,FLOAT16,FLOAT16\n");
  dir.write(prof + "mindstudio_profiler_output/step_trace_20231109194130.csv",
            "Device_id,Iteration ID,FP Start(us),BP End(us),Iteration End(us),"
            "Iteration Time(us),FP to BP Time(us),Iteration Refresh(us),"
            "Data Aug Bound(us),Model ID,Reduce Start(us),Reduce Duration(us)\n"
            "0,1,1699529622790600,1699529622791500,1699529622792000,1500,900,10,N/A,1,"
            "1699529622791600,300\n");
  copy("ascend/mstt/trace_view.json", "mindstudio_profiler_output/msprof_20231109194130.json");
  dir.write(prof + "mindstudio_profiler_output/README.txt", "not profiling data\n");

  for (const std::string& at : {std::string(""), prof, prof + "mindstudio_profiler_output/"}) {
    INFO("pointed at '" << at << "'");
    auto parent = (dir.path() / at).string();
    auto report = analyze_json({parent});
    CHECK(report.run().device() == "ascend");
    CHECK(report.run().ops() == 3);
    CHECK(report.run().steps() >= 1);
    std::map<std::string, std::string> collector_of;
    for (const auto& f : report.ingest())
      collector_of[std::filesystem::path(f.path()).filename().string()] = f.collector();
    CHECK(collector_of["op_summary_20231109194130.csv"] == "ascend.op_table");
    CHECK(collector_of["README.txt"] == "unrecognised");
    CHECK(collector_of.count("ts_track.data.0.slice_0") == 0);
    if (at.empty() || at == prof) {
      int skipped_entries = 0;
      for (const auto& f : report.ingest()) {
        if (f.collector() != "skipped") continue;
        ++skipped_entries;
        std::string all;
        for (const auto& w : f.warnings()) all += w + "\n";
        CHECK_THAT(all, Catch::Contains("2 msprof raw data files"));
        CHECK_THAT(all, Catch::Contains("1 msprof .done marker"));
      }
      CHECK(skipped_entries == 1);
    }
    CHECK(collector_of.count("msprof_20231109194130.json") == 1);
    CHECK(collector_of.count("step_trace_20231109194130.csv") == 1);
    if (at.empty() || at == prof) {
      // info.json sits beside mindstudio_profiler_output: its core counts reach the block-dim
      // check (33 is not a multiple of 48 vector cores: 156 us of idle cores).
      CHECK(collector_of["info.json.0"] == "ascend.device_info");
      auto bd = findings(report, "ascend_schedule", "block_dim");
      REQUIRE(bd.size() == 1);
      CHECK(has_subject(*bd[0], "AI_VECTOR_CORE"));
    }
    // The AI CPU Cast from the op table and the timeline's own AI CPU tasks: the op table wins.
    CHECK(any_subject(findings(report, "aicpu"), "trans_Cast_5"));
  }
}

TEST_CASE("query reads a store, event tables included, and never writes") {
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  auto trace = dir.write("t.pt.trace.json", R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 10, "dur": 5,
     "args": {"External id": 7}},
    {"ph": "X", "cat": "kernel", "name": "sgemm\tv2", "pid": 0, "tid": 7, "ts": 12, "dur": 3,
     "args": {"External id": 7, "correlation": 9, "device": 0, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "sgemm\tv2", "pid": 0, "tid": 7, "ts": 16, "dur": 2,
     "args": {"External id": 7, "correlation": 10, "device": 0, "stream": 7}}
  ]})");
  REQUIRE(run_command("ingest", {trace.string(), "--store", store}).code == 0);
  auto r = run_command("query", {"--store", store,
                                 "SELECT name, count(*) AS n, sum(dur_ns) AS ns FROM device_events "
                                 "WHERE kind = 'kernel' GROUP BY name"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out == "name\tn\tns\nsgemm\\tv2\t2\t5000\n");  // a tab inside a value is escaped
  auto w = run_command("query", {"--store", store, "DELETE FROM runs"});
  CHECK(w.code == 1);
  // Said as what it is, naming the statement and what it would do (not SQLite's "not
  // authorized").
  CHECK_THAT(w.err, Catch::Contains("read-only queries only: refused 'DELETE FROM runs' (it "
                                    "would delete from runs)"));
  CHECK_THAT(run_command("query", {"--store", store, "PRAGMA user_version=7"}).err,
             Catch::Contains("read-only queries only: refused 'PRAGMA user_version=7' (it would "
                             "set pragma user_version = 7)"));
  CHECK(count_rows(store, "runs") == 1);
  // What a read-only connection still allows is refused too: files made by ATTACH and
  // VACUUM INTO, pragmas that set something, and a second statement after a harmless one.
  auto copy = dir.path() / "copy.db";
  for (const std::string& sql :
       {"VACUUM INTO '" + copy.string() + "'", "ATTACH '" + copy.string() + "' AS x",
        std::string("PRAGMA user_version=7"), std::string("PRAGMA writable_schema=1"),
        std::string("PRAGMA journal_mode=DELETE"), std::string("SELECT 1; DELETE FROM runs"),
        std::string("SELECT 1; SELECT 2"),
        std::string("INSERT INTO host_events(run_id) VALUES(1)")}) {
    INFO(sql);
    auto refused = run_command("query", {"--store", store, sql});
    CHECK(refused.code == 1);
    CHECK_FALSE(std::filesystem::exists(copy));
  }
  CHECK(count_rows(store, "runs") == 1);
  CHECK(run_command("query", {"--store", store, "PRAGMA user_version"}).out ==
        "user_version\n" + std::to_string(perfsage::store::current_schema_version()) + "\n");
  CHECK(run_command("query", {"--store", store, "SELECT count(*) FROM runs; -- done\n"}).out ==
        "count(*)\n1\n");
  CHECK(run_command("query", {"--store", store, "PRAGMA table_info(runs)"}).code == 0);
  CHECK(run_command("query", {"--store", store,
                              "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n "
                              "WHERE i<3) SELECT sum(i) FROM n"})
            .out == "sum(i)\n6\n");
  auto bad = run_command("query", {"--store", store, "SELECT nope FROM runs"});
  CHECK(bad.code == 1);
  CHECK_THAT(bad.err, Catch::Contains("nope"));
  CHECK(run_command("query", {"SELECT 1"}).code == 2);        // --store is required
  CHECK(run_command("query", {"--store", store}).code == 2);  // neither SQL nor --tables
  // --tables shows the event tables, which sqlite_schema does not list.
  auto t = run_command("query", {"--store", store, "--tables"});
  CHECK(t.code == 0);
  CHECK_THAT(t.out, Catch::Contains("host_events\trun_id, rank, kind, name, pid, tid, start_ns"));
  CHECK_THAT(t.out, Catch::Contains("device_events\trun_id, rank, kind, name, device, stream"));
  CHECK_THAT(t.out, Catch::Contains("\nruns\tid, job, inputs"));
}

TEST_CASE("deleting a run removes its rows from every table of the store") {
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  // An op table and a Kineto trace with a kernel: raw, derived and result tables get rows.
  auto csv = dir.write("run1/kernel_details.csv", kernel_details_csv());
  auto trace = dir.write("run1/t.pt.trace.json", R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 10, "dur": 5,
     "args": {"External id": 7}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 11,
     "dur": 2, "args": {"correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 14, "dur": 3,
     "args": {"External id": 9, "correlation": 9, "device": 0, "stream": 7}}
  ]})");
  auto report = analyze_json({csv.string(), trace.string(), "--store", store});
  perfsage::store::Database db(store);
  auto tables = db.prepare(
      "SELECT m.name FROM sqlite_schema m, pragma_table_info(m.name) c "
      "WHERE m.type = 'table' AND c.name = 'run_id'");
  std::vector<std::string> names;
  while (tables.step()) names.push_back(tables.text(0));
  auto rows_of_run = [&](const std::string& table) {
    auto st = db.prepare("SELECT count(*) FROM \"" + table + "\" WHERE run_id = ?1");
    st.bind(1, report.run().id());
    st.step();
    return st.int64(0);
  };
  int64_t before = 0;
  for (const auto& t : names) before += rows_of_run(t);
  CHECK(before > 20);
  perfsage::store::delete_run(db, report.run().id());
  for (const auto& t : names) {
    INFO(t);
    CHECK(rows_of_run(t) == 0);
  }
  CHECK(count_rows(store, "runs") == 0);
}

TEST_CASE("-o FILE writes through a FIFO or device and follows links; it never replaces them") {
  TempDir dir;
  auto csv = dir.write("kernel_details.csv", kernel_details_csv());
  auto fifo = dir.path() / "report.pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // The reader is open first (so the writer's open does not wait) and a spare writer keeps it
  // from seeing the end before perfsage wrote: the reader stops when both are closed.
  int rfd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(rfd >= 0);
  ::fcntl(rfd, F_SETFL, 0);
  int spare = ::open(fifo.c_str(), O_WRONLY);
  REQUIRE(spare >= 0);
  std::string got;
  std::thread reader([&] {
    char buf[4096];
    for (ssize_t n; (n = ::read(rfd, buf, sizeof buf)) > 0;)
      got.append(buf, static_cast<size_t>(n));
  });
  auto r = run_command("analyze", {csv.string(), "--format", "json", "-o", fifo.string()});
  ::close(spare);
  reader.join();
  ::close(rfd);
  INFO(r.err);
  CHECK(r.code == 0);
  struct stat st;
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));  // was renamed over: a regular file, and the reader got nothing
  CHECK(parse_report(got).recommendations_size() > 0);

  // A link to a report: the link stays, the report it names is replaced.
  std::filesystem::create_directories(dir.path() / "reports");
  auto link = dir.path() / "latest.txt";
  std::filesystem::create_symlink("reports/run1.txt", link);
  r = run_command("analyze", {csv.string(), "-o", link.string()});
  CHECK(r.code == 0);
  CHECK(std::filesystem::is_symlink(link));
  CHECK(std::filesystem::file_size(dir.path() / "reports/run1.txt") > 0);
}
