// The Kineto collector on synthetic traces written by the tests: legacy spellings, array form,
// key order, timestamps, flows, ranks, gzip, detection.
#include <fstream>
#include <iterator>

#include "collectors/kineto/event_mapper.h"
#include "collectors/kineto/json_scan.h"
#include "collectors/kineto/number_text.h"
#include "collectors/kineto/trace_buffer.h"
#include "collectors/kineto/trace_metadata.h"
#include "kineto_test_util.h"

using namespace perfsage;
using namespace perfsage::test;
using namespace perfsage::collectors::kineto;
using collectors::Mode;

TEST_CASE("Microsecond text converts to exact nanoseconds", "[kineto]") {
  CHECK(parse_us_to_ns("1212075548353.304") == 1212075548353304LL);
  CHECK(parse_us_to_ns("1695835572943623") == 1695835572943623000LL);
  CHECK(parse_us_to_ns("2.5") == 2500);
  CHECK(parse_us_to_ns("0.0005") == 0);  // below a nanosecond: truncated
  CHECK(parse_us_to_ns("-3.25") == -3250);
  CHECK(parse_us_to_ns("\"17.5\"") == 17500);
  CHECK(parse_us_to_ns("1.5e3") == 1500000);
  CHECK(parse_us_to_ns("2.5E-1") == 250);
  CHECK(parse_us_to_ns("-1e0") == -1000);
  // A mantissa beyond int64 still reads in exponent form (as a double: 1e10 us).
  CHECK(parse_us_to_ns("99999999999999999999e-10") == 10000000000000LL);
  CHECK_FALSE(parse_us_to_ns("1.5e"));
  CHECK_FALSE(parse_us_to_ns("12x"));
  CHECK_FALSE(parse_us_to_ns("N/A"));
  CHECK_FALSE(parse_us_to_ns(""));
  CHECK_FALSE(parse_us_to_ns("99999999999999999999"));  // beyond int64 ns
}

TEST_CASE("Copy kinds, categories and ranks from names", "[kineto]") {
  CHECK(memcpy_kind_from_name("Memcpy HtoD (Pageable -> Device)") == "HtoD Pageable");
  CHECK(memcpy_kind_from_name("Memcpy DtoH (Device -> Pinned)") == "DtoH Pinned");
  CHECK(memcpy_kind_from_name("Memcpy DtoD (Device -> Device)") == "DtoD");
  CHECK(memcpy_kind_from_name("Memcpy PtoP") == "PtoP");
  CHECK(memcpy_kind_from_name("Memset (Device)").empty());
  CHECK(classify_category("Kernel") == Category::kernel);
  CHECK(classify_category("Operator") == Category::cpu_op);
  CHECK(classify_category("Runtime") == Category::runtime);
  CHECK(classify_category("privateuse1_runtime") == Category::runtime);
  CHECK(classify_category("cuda_driver") == Category::driver);
  CHECK(classify_category("Memcpy") == Category::memcpy);
  CHECK(classify_category("gpu_user_annotation") == Category::gpu_annotation);
  CHECK(classify_category("Trace") == Category::other);
  CHECK(rank_from_file_name("rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz") == 34);
  CHECK(rank_from_file_name("trace_rank_3.json") == 3);
  CHECK(rank_from_file_name("RANK7.json") == 7);
  CHECK_FALSE(rank_from_file_name("worker0.1234.pt.trace.json"));
}

TEST_CASE("a trace's rank is told from its first bytes as the collector will give it") {
  const std::string head_with = R"({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", )"
                                R"("rank": 5, "world_size": 8}, "traceEvents": [{"ph": "X", )";
  CHECK(rank_from_head(head_with, "trace_rank_3.json") == 5);  // distributedInfo wins
  // distributedInfo without a rank, or none before the events: the file name, as identify().
  CHECK(rank_from_head(R"({"distributedInfo": {"backend": "gloo"}, "traceEvents": [)",
                       "trace_rank_3.json") == 3);
  CHECK(rank_from_head(R"({"schemaVersion": 1, "traceEvents": [{"ph": "X", )",
                       "trace_rank_3.json") == 3);
  CHECK_FALSE(rank_from_head(R"({"schemaVersion": 1, "traceEvents": [)", "worker0.json"));
  // Cut inside distributedInfo: its rank may be in what is not read; never the file name's.
  CHECK_FALSE(
      rank_from_head(R"({"distributedInfo": {"backend": "nccl", "ra)", "trace_rank_3.json"));
}

namespace {

// A new-format trace: relative fractional ts, base time and distributedInfo after the events,
// events out of order, metadata last, string pids, flows with an orphan end.
const char* kNewFormat = R"J({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85000000000,
                        "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
  "traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce", "pid": 0, "tid": 7,
   "ts": 20.5, "dur": 10.25,
   "args": {"External id": 5, "device": 0, "stream": 7, "correlation": 11, "grid": [4, 1, 1],
            "block": [512, 1, 1], "Collective name": "allreduce", "In msg nelems": 1024,
            "Out msg nelems": 1024, "Group size": 8, "dtype": "Float",
            "Comms Id": 123456789012345678901234567890}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 101,
   "ts": 10.125, "dur": 3, "args": {"External id": 5, "cbid": 211, "correlation": 11}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 100, "tid": 101,
   "ts": 1.000, "dur": 100.000, "args": {}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 101, "ts": 9, "dur": 5,
   "args": {"External id": 5, "Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"],
            "Sequence number": 12, "Fwd thread id": 0}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0,
   "tid": 7, "ts": 40, "dur": 2, "args": {"bytes": 4096, "memory bandwidth (GB/s)": 2.048,
   "correlation": 12, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "## forward ##", "pid": 0, "tid": 7,
   "ts": 19, "dur": 30},
  {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 50, "dur": 1,
   "args": {"cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": 13, "device": 0}},
  {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 100, "tid": 101, "ts": 12,
   "dur": 1, "args": {"correlation": 14}},
  {"ph": "X", "cat": "python_function", "name": "train.py(10): step", "pid": 100, "tid": 101,
   "ts": 2, "dur": 90},
  {"ph": "s", "id": 11, "pid": 100, "tid": 101, "ts": 10.125, "cat": "ac2g", "name": "ac2g"},
  {"ph": "f", "id": 11, "pid": 0, "tid": 7, "ts": 20.5, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "f", "id": 99, "pid": 100, "tid": 101, "ts": 30, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces",
   "tid": "Trace PyTorch Profiler", "ts": 1},
  {"ph": "X", "cat": "Trace", "ts": 0, "dur": 200, "pid": "Spans", "tid": "PyTorch Profiler",
   "name": "PyTorch Profiler (0)", "args": {"Op count": 0}},
  {"name": "process_name", "ph": "M", "ts": 0, "pid": 0, "tid": 0, "args": {"name": "GPU 0"}}
  ],
  "distributedInfo": {"backend": "nccl", "rank": 5, "world_size": 8, "pg_count": 1},
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1700000000000000000
})J";

}  // namespace

TEST_CASE("New-format trace: every category, base time after events, collective args", "[kineto]") {
  TempDir dir;
  for (bool gz : {false, true}) {
    auto path = gz ? write_gz(dir, "w.pt.trace.json.gz", kNewFormat)
                   : dir.write("w.pt.trace.json", kNewFormat);
    auto r = kineto_ingest(path, Mode::strict);
    const int64_t base = 1700000000000000000LL;
    CHECK(r.text("SELECT start_ns || '/' || dur_ns FROM device_events WHERE run_id=?1 AND "
                 "kind='kernel'") == std::to_string(base + 20500) + "/10250");
    CHECK(r.text("SELECT args FROM device_events WHERE run_id=?1 AND kind='kernel'") ==
          "{\"Collective name\":\"allreduce\",\"In msg nelems\":1024,\"Out msg nelems\":1024,"
          "\"Group size\":8,\"dtype\":\"Float\",\"Comms Id\":123456789012345678901234567890}");
    CHECK(r.text("SELECT grid || block FROM device_events WHERE run_id=?1 AND kind='kernel'") ==
          "[4,1,1][512,1,1]");
    CHECK(r.text("SELECT memcpy_kind || ':' || bytes FROM device_events WHERE run_id=?1 AND "
                 "kind='memcpy'") == "DtoH Pinned:4096");
    CHECK(r.count("SELECT count(*) FROM device_events WHERE run_id=?1 AND kind='gpu_annotation' "
                  "AND device=0 AND stream=7") == 1);
    CHECK(r.count("SELECT count(*) FROM device_events WHERE run_id=?1 AND kind='sync'") == 1);
    CHECK(r.count("SELECT count(*) FROM host_events WHERE run_id=?1 AND kind='driver'") == 1);
    CHECK(r.count("SELECT count(*) FROM host_events WHERE run_id=?1 AND kind='python'") == 1);
    CHECK(r.text("SELECT input_dims || input_types || args FROM host_events WHERE run_id=?1 AND "
                 "name='aten::mm'") ==
          "[[2,3],[3,4]][\"float\",\"float\"]{\"Sequence number\":12,\"Fwd thread id\":0}");
    // cpu op -> runtime by External id, runtime -> kernel by correlation.
    CHECK(r.count("SELECT count(*) FROM host_events h JOIN device_events d ON "
                  "d.run_id=h.run_id AND d.correlation=h.correlation WHERE h.run_id=?1 AND "
                  "h.kind='runtime' AND h.external_id=5") == 1);
    CHECK(r.text("SELECT step || ':' || start_ns || ':' || dur_ns || ':' || rank FROM steps "
                 "WHERE run_id=?1") == "3:" + std::to_string(base + 1000) + ":100000:5");
    CHECK(r.text("SELECT rank || world_size || backend FROM ranks WHERE run_id=?1") == "58nccl");
    CHECK(r.text("SELECT name || sm_count || compute_capability FROM hardware WHERE run_id=?1") ==
          "NVIDIA H10013"
          "29.0");
    CHECK(r.report_mentions("2 flow ends; 1 ends have no start"));
    CHECK(r.hints.device == "cuda");
    // The Trace span, instants, flows and metadata are not stored as events.
    CHECK(r.count("SELECT count(*) FROM host_events WHERE run_id=?1") == 5);
  }
}

TEST_CASE("Legacy 2021 trace in array form without closing bracket", "[kineto]") {
  TempDir dir;
  // Legacy categories, lower-case "external id", string tids, integer µs times, no ']'.
  auto path = dir.write("trace_rank_3.json", R"J([
  {"ph": "X", "cat": "Operator", "name": "ProfilerStep#7", "pid": 1, "tid": "1", "ts": 1000,
   "dur": 500, "args": {"external id": 1}},
  {"ph": "X", "cat": "Operator", "name": "aten::conv2d", "pid": 1, "tid": "1", "ts": 1010,
   "dur": 50, "args": {"external id": 2, "Input dims": [[1]]}},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": "1", "ts": 1020,
   "dur": 5, "args": {"correlation": 77, "external id": 2}},
  {"ph": "X", "cat": "Kernel", "name": "implicit_gemm", "pid": 0, "tid": "stream 7 ",
   "ts": 1100, "dur": 40, "args": {"correlation": 77, "external id": 2}},
  {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0,
   "tid": "stream 7 ", "ts": 1090, "dur": 4, "args": {"bytes": 64}},
  {"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": 0, "tid": "stream 7 ",
   "ts": 1095, "dur": 1, "args": {}},
  {"ph": "s", "id": 77, "pid": 1, "tid": "1", "ts": 1020, "cat": "async", "name": "launch"},
  {"ph": "f", "id": 77, "pid": 0, "tid": "stream 7 ", "ts": 1100, "cat": "async", "name": "launch"},
)J");
  auto r = kineto_ingest(path, Mode::strict);
  CHECK(r.text("SELECT step || ':' || start_ns || ':' || rank FROM steps WHERE run_id=?1") ==
        "7:1000000:3");
  CHECK(r.text("SELECT source FROM ranks WHERE run_id=?1") == "file name");
  CHECK(r.text("SELECT device || ':' || stream || ':' || external_id FROM device_events WHERE "
               "run_id=?1 AND kind='kernel'") == "0:7:2");
  CHECK(r.text("SELECT memcpy_kind FROM device_events WHERE run_id=?1 AND kind='memcpy'") ==
        "HtoD Pinned");
  CHECK(r.count("SELECT count(*) FROM device_events WHERE run_id=?1 AND kind='memset'") == 1);
  CHECK(r.count("SELECT count(*) FROM host_events WHERE run_id=?1 AND kind='cpu_op'") == 2);
  CHECK(r.count("SELECT count(*) FROM host_events WHERE run_id=?1 AND kind='runtime' AND "
                "correlation=77 AND external_id=2") == 1);
  CHECK(r.count("SELECT tid IS NULL FROM host_events WHERE run_id=?1 LIMIT 1") == 0);
  CHECK_FALSE(r.report_mentions("no start"));
  // No deviceProperties, but GPU events: still a CUDA run.
  CHECK(r.hints.device == "cuda");
}

TEST_CASE("A trace without rank anywhere defaults to rank 0 with a warning", "[kineto]") {
  TempDir dir;
  auto path = dir.write("worker0.pt.trace.json",
                        R"({"schemaVersion": 1, "deviceProperties": [], "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 5, "dur": 1}]})");
  auto r = kineto_ingest(path, Mode::strict);
  CHECK(r.text("SELECT rank || source FROM ranks WHERE run_id=?1") == "0default");
  CHECK(r.report_mentions("assuming rank 0"));
  CHECK(r.hints.device == "cpu");
}

TEST_CASE("Detection scores", "[kineto]") {
  TempDir dir;
  auto probe = [&](const std::string& name, const std::string& content) {
    return detect_kineto(collectors::probe_file(dir.write(name, content)));
  };
  CHECK(probe("a.pt.trace.json", kNewFormat) == 80);
  CHECK(probe("chrome.json", R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1}]})") == 50);
  CHECK(probe("chrome.json", R"([{"ph":"B","name":"a","ts":1}])") == 50);
  // Ascend timelines belong to the Ascend collector.
  CHECK(
      probe("trace_view.json",
            R"([{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "Ascend Hardware"}},
                  {"ph": "X", "cat": "kernel", "name": "MatMul", "ts": 1}])") == 0);
  CHECK(probe("op_summary.csv", "Device_id,Op Name\n0,MatMul\n") == 0);
  CHECK(probe("x.json", R"({"model": "resnet"})") == 0);
}

TEST_CASE("Metadata guessed from the tail is checked against the real keys", "[kineto]") {
  // The parse starts before the layout scan has found the top-level keys written after the
  // events, with a guess from the file's tail. Here an event's args hold keys named like
  // Kineto's metadata, so the guess is wrong: the events must be read again with the real values
  // (no base time, rank from the file name), once, with nothing counted twice.
  const char* trace = R"J({
  "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 10, "dur": 5},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 2, "ts": 20, "dur": 5,
   "args": {"distributedInfo": {"rank": 7}, "baseTimeNanoseconds": 5000000}},
  {"ph": "X", "cat": "cpu_op", "name": "bad", "pid": 1, "tid": 2, "ts": "N/A", "dur": 1}
  ],
  "traceName": "x"
})J";
  const char* right = R"J({
  "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 10, "dur": 5}
  ],
  "distributedInfo": {"rank": 3, "world_size": 4},
  "baseTimeNanoseconds": 1000
})J";
  // The guess really is wrong here (both nested keys are taken for top-level ones), so the
  // threaded read below has to go through the rollback to produce the right rows.
  auto guessed = guess_tail_keys(trace, {"distributedInfo", "baseTimeNanoseconds"}, 1 << 20);
  REQUIRE(guessed.size() == 2);
  CHECK(std::string_view(trace).substr(guessed[1].second.begin, guessed[1].second.size()) ==
        "5000000");
  TempDir dir;
  for (bool threaded : {true, false}) {
    INFO("threaded " << threaded);
    collectors::kineto::KinetoOptions opt;
    opt.threaded = threaded;
    auto r = kineto_ingest(dir.write("worker_rank5.pt.trace.json", trace), Mode::lenient, opt);
    CHECK(r.text("SELECT group_concat(start_ns, ',') FROM host_events WHERE run_id=?1") ==
          "10000,20000");
    CHECK(r.count("SELECT min(rank) FROM host_events WHERE run_id=?1") == 5);
    CHECK(r.text("SELECT rank || source FROM ranks WHERE run_id=?1") == "5file name");
    CHECK(r.count("SELECT count(*) FROM ranks WHERE run_id=?1") == 1);
    CHECK(r.records == 3);  // two events and the rank record
    CHECK(r.skipped == 1);

    // Keys after the events that the guess finds: read once, values applied.
    auto g = kineto_ingest(dir.write("other.json", right), Mode::strict, opt);
    CHECK(g.text("SELECT start_ns || ':' || rank FROM host_events WHERE run_id=?1") == "11000:3");
    CHECK(g.count("SELECT count(*) FROM ranks WHERE run_id=?1") == 1);
  }
}

TEST_CASE("Gzip: one member, several members, trailing bytes and damage read alike or fail clearly",
          "[kineto]") {
  // One member is inflated in a single call; the other shapes take the streaming inflater.
  // Whatever the path, the rows are those of the plain file.
  TempDir dir;
  auto rows = [](const Ingested& r) {
    return r.text(
        "SELECT count(*) || ':' || group_concat(kind || name || start_ns, ';') FROM "
        "(SELECT kind, name, start_ns FROM host_events WHERE run_id=?1 UNION ALL "
        "SELECT kind, name, start_ns FROM device_events WHERE run_id=?1)");
  };
  const std::string plain = rows(kineto_ingest(dir.write("p.json", kNewFormat), Mode::strict));
  auto bytes_of = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  auto write_bytes = [&](const std::string& name, const std::string& content) {
    auto p = dir.path() / name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
  };
  std::string one = bytes_of(write_gz(dir, "one.json.gz", kNewFormat));
  CHECK(rows(kineto_ingest(dir.path() / "one.json.gz", Mode::strict)) == plain);
  CHECK(std::string(collectors::kineto::TraceBuffer(dir.path() / "one.json.gz").inflater()) ==
        "libdeflate");

  const std::string text = kNewFormat;
  const size_t half = text.size() / 2;
  std::string two = bytes_of(write_gz(dir, "a.gz", text.substr(0, half))) +
                    bytes_of(write_gz(dir, "b.gz", text.substr(half)));
  CHECK(rows(kineto_ingest(write_bytes("two.json.gz", two), Mode::strict)) == plain);
  CHECK(std::string(collectors::kineto::TraceBuffer(dir.path() / "two.json.gz").inflater()) ==
        "zlib");  // the trailer gives only the last member's size

  // Inflated on a thread of its own while the scan reads: the same rows; two members (the
  // trailer's size is the second's) are read again once the whole text is there.
  collectors::kineto::KinetoOptions overlapped;
  overlapped.overlap_inflate_bytes = 1;
  overlapped.chunk_bytes = 256;
  CHECK(std::string(collectors::kineto::TraceBuffer(dir.path() / "one.json.gz", 1).inflater()) ==
        "zlib, overlapped");
  CHECK(rows(kineto_ingest(dir.path() / "one.json.gz", Mode::strict, overlapped)) == plain);
  CHECK(rows(kineto_ingest(dir.path() / "two.json.gz", Mode::strict, overlapped)) == plain);

  // Damage inside the deflate data, or a file cut short: an error naming the compressed
  // offset, never a crash, whether or not the inflate overlaps the scan.
  std::string damaged = one;
  for (size_t i = 20; i < damaged.size() - 20; i += 7) damaged[i] = static_cast<char>(~damaged[i]);
  std::string cut = one.substr(0, one.size() / 2) + one.substr(one.size() - 8);  // trailer kept
  for (const auto& [name, bytes] : {std::pair{"bad.json.gz", damaged}, {"cut.json.gz", cut}}) {
    for (size_t overlap : {size_t{0}, size_t{1}}) {
      INFO(name << ", overlap " << overlap);
      collectors::kineto::KinetoOptions opt;
      opt.overlap_inflate_bytes = overlap;
      try {
        kineto_ingest(write_bytes(name, bytes), Mode::lenient, opt);
        FAIL("damaged gzip data was accepted");
      } catch (const collectors::ParseError& e) {
        CHECK_THAT(e.what(), Catch::Contains("gzip"));
      }
    }
  }
}

TEST_CASE("events of categories nothing reads are counted by category and said", "[kineto]") {
  // A report that finds no problem in events it never read would mislead: the ingest summary
  // names what was left out.
  const char* trace = R"J({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
  {"ph": "X", "cat": "mystery_metrics", "name": "m1", "pid": 1, "tid": 1, "ts": 1, "dur": 5},
  {"ph": "X", "cat": "mystery_metrics", "name": "m2", "pid": 1, "tid": 1, "ts": 2, "dur": 5},
  {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler", "pid": 1, "tid": 1, "ts": 0, "dur": 20}
 ]})J";
  TempDir dir;
  auto r = kineto_ingest(dir.write("t.json", trace), collectors::Mode::strict);
  CHECK(r.report_mentions(
      "2 complete events of categories perfsage does not read, left out of every analysis: "
      "mystery_metrics (2)"));
  CHECK(r.count("SELECT count(*) FROM host_events WHERE run_id=?1") == 1);
}
