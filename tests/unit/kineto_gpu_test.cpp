// GPU analyzers over Kineto traces: step breakdown, per-stream busy time, launch and sync stats.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "analyzers/core/analyzer.h"
#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/gpu/intervals.h"
#include "kineto_test_util.h"

using namespace perfsage;
using namespace perfsage::test;
using namespace perfsage::analyzers::gpu;

// The GPU analyzers alone, on a store brought to the declared tables as the
// application opens one (the migrations make only the older ones).
inline void analyze_gpu(Ingested& r) {
  for (const auto& a : {analyzers::gpu_analyzer(), analyzers::gpu_launches_analyzer(),
                        analyzers::gpu_launch_links_analyzer(), analyzers::gpu_timeline_analyzer()})
    store::ensure_derived_tables(*r.db, a.writes);
  analyzers::gpu::analyze_gpu_run(*r.db, r.run);
}

TEST_CASE("Interval unions and intersections", "[gpu]") {
  std::vector<Interval> a{{10, 20}, {0, 5}, {15, 30}, {30, 31}, {40, 40}};
  merge(a);
  CHECK(a == std::vector<Interval>{{0, 5}, {10, 31}});
  CHECK(length(a) == 26);
  std::vector<Interval> b{{3, 12}, {20, 50}};
  CHECK(intersection(a, b) == 2 + 2 + 11);
  CHECK(intersection(a, {}) == 0);
}

namespace {
const char* kOverlap = R"J({"schemaVersion": 1, "distributedInfo": {"rank": 2},
 "deviceProperties": [{"id": 0, "name": "NVIDIA A100", "numSms": 108}],
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 1, "tid": 1, "ts": 0, "dur": 300},
  {"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 0, "dur": 20},
  {"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#inner", "pid": 1, "tid": 1, "ts": 5, "dur": 5},
  {"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#SGD.step", "pid": 1, "tid": 1, "ts": 250, "dur": 30},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": -10, "dur": 60, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 5, "args": {"correlation": 2}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 60, "dur": 5, "args": {"correlation": 3}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 66, "dur": 150},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1, "ts": 290, "dur": 5},
  {"ph": "X", "cat": "kernel", "name": "sm80_gemm", "pid": 0, "tid": 7, "ts": 0, "dur": 100, "args": {"correlation": 1, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32", "pid": 0, "tid": 20, "ts": 50, "dur": 100, "args": {"correlation": 2, "device": 0, "stream": 20}},
  {"ph": "X", "cat": "kernel", "name": "tiny", "pid": 0, "tid": 7, "ts": 220, "dur": 4, "args": {"device": 0, "stream": 7}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 200, "dur": 10, "args": {"correlation": 3, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 210, "dur": 6, "args": {"device": 0, "stream": 7}}
 ]})J";

struct Row {
  double computing, comm, overlapped, not_overlapped, free, dataloader, optimizer;
};
}  // namespace

TEST_CASE("Step breakdown: compute, communication, overlap, idle, dataloader, optimizer", "[gpu]") {
  TempDir dir;
  auto r = kineto_ingest(dir.write("t.json", kOverlap), collectors::Mode::strict);
  analyze_gpu(r);
  auto st = r.db->prepare(
      "SELECT step, rank, dur_ns, computing_us, comm_us, overlapped_us, comm_not_overlapped_us, "
      "free_us, dataloader_us, optimizer_us FROM steps WHERE run_id=?1 AND "
      "source='gpu_breakdown'");
  st.bind(1, r.run);
  REQUIRE(st.step());
  CHECK(st.int64(0) == 4);
  CHECK(st.int64(1) == 2);
  CHECK(st.int64(2) == 300000);
  CHECK(st.real(3) == Approx(104));  // gemm 100 + tiny 4
  CHECK(st.real(4) == Approx(100));
  CHECK(st.real(5) == Approx(50));
  CHECK(st.real(6) == Approx(50));
  CHECK(st.real(7) == Approx(300 - 150 - 10 - 4));
  CHECK(st.real(8) == Approx(20));  // nested annotation counted once
  CHECK(st.real(9) == Approx(30));
  CHECK_FALSE(st.step());

  CHECK(r.count("SELECT count(*) FROM gpu_streams WHERE run_id=?1") == 2);
  CHECK(r.text("SELECT kernels || ':' || compute_us || ':' || memcpy_us || ':' || busy_us || ':' "
               "|| idle_us FROM gpu_streams WHERE run_id=?1 AND stream=7") ==
        "2:104.0:10.0:114.0:186.0");
  CHECK(r.text("SELECT comm_us FROM gpu_streams WHERE run_id=?1 AND stream=20") == "100.0");

  auto ls = r.db->prepare(
      "SELECT launches, launch_cpu_us, slow_launches, linked, delay_max_us, delayed, kernels, "
      "short_kernels, sync_calls, device_sync_calls, stream_sync_calls, gpu_sync_events, "
      "gpu_sync_us FROM gpu_launch_stats WHERE run_id=?1");
  ls.bind(1, r.run);
  REQUIRE(ls.step());
  CHECK(ls.int64(0) == 2);
  CHECK(ls.real(1) == Approx(65));
  CHECK(ls.int64(2) == 1);           // the 60 µs launch
  CHECK(ls.int64(3) == 3);           // two kernels and the copy are linked by correlation
  CHECK(ls.real(4) == Approx(135));  // copy: launch ends at 65, starts at 200
  CHECK(ls.int64(5) == 1);
  CHECK(ls.int64(6) == 3);
  CHECK(ls.int64(7) == 1);
  CHECK(ls.int64(8) == 2);
  CHECK(ls.int64(9) == 1);
  CHECK(ls.int64(10) == 1);
  CHECK(ls.int64(11) == 1);
  CHECK(ls.real(12) == Approx(6));

  // Running again replaces the results.
  analyze_gpu(r);
  CHECK(r.count("SELECT count(*) FROM steps WHERE run_id=?1 AND source='gpu_breakdown'") == 1);
  CHECK(r.count("SELECT count(*) FROM gpu_launch_stats WHERE run_id=?1") == 1);
}

TEST_CASE("GPU analyzers on the AlexNet sample", "[gpu][samples]") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto r = kineto_ingest(alexnet_sample(), collectors::Mode::strict);
  analyze_gpu(r);
  // No ProfilerStep: the whole trace is one window.
  auto st = r.db->prepare(
      "SELECT step, computing_us, comm_us, free_us, dur_ns FROM steps WHERE run_id=?1 AND "
      "source='gpu_breakdown'");
  st.bind(1, r.run);
  REQUIRE(st.step());
  CHECK(st.int64(0) == 0);
  CHECK(st.real(1) > 0);
  CHECK(st.real(2) == 0);
  // The GPU is busy for ~66 ms of a trace lasting tens of seconds.
  CHECK(st.real(3) > 0.99 * static_cast<double>(st.int64(4)) / 1e3);
  CHECK_FALSE(st.step());

  auto ls = r.db->prepare(
      "SELECT sync_calls, stream_sync_calls, device_sync_calls, linked, delayed, slow_launches "
      "FROM gpu_launch_stats WHERE run_id=?1");
  ls.bind(1, r.run);
  REQUIRE(ls.step());
  CHECK(ls.int64(0) == 21);
  CHECK(ls.int64(1) == 16);
  CHECK(ls.int64(2) == 5);
  CHECK(ls.int64(3) == 98);  // 79 kernels + 16 copies + 3 memsets
  CHECK(ls.int64(4) == 43);
  CHECK(ls.int64(5) == 3);

  // Every kernel's "External id" is its correlation id here; all 79 reach their CPU op through
  // the launch call, e.g. the 12 layout conversions cuDNN runs inside the convolutions.
  CHECK(r.count("SELECT count(*) FROM device_events WHERE run_id=?1 AND kind='kernel' AND "
                "external_id = correlation") == 79);
  CHECK(r.count("SELECT coalesce(sum(kernels), 0) FROM kernel_groups WHERE run_id=?1 AND "
                "op IS NULL") == 0);
  CHECK(r.count("SELECT kernels FROM kernel_groups WHERE run_id=?1 AND op = "
                "'aten::cudnn_convolution' AND name LIKE '%nchwToNhwcKernel%'") == 12);
  CHECK(r.count("SELECT kernels FROM kernel_groups WHERE run_id=?1 AND op = 'aten::addmm' AND "
                "name LIKE 'ampere_sgemm%'") == 6);

  // The API calls per rank and name equal SQL's grouping of the calls.
  CHECK(r.text("SELECT group_concat(rank || name || calls || ':' || dur_ns || ':' || max_ns, ';') "
               "FROM (SELECT * FROM api_totals WHERE run_id=?1 ORDER BY rank, name)") ==
        r.text("SELECT group_concat(rank || name || n || ':' || d || ':' || m, ';') FROM (SELECT "
               "rank, name, count(*) AS n, sum(dur_ns) AS d, max(dur_ns) AS m FROM host_events "
               "WHERE run_id=?1 AND kind IN ('runtime','driver','api') GROUP BY rank, name "
               "ORDER BY rank, name)"));
  CHECK(r.count("SELECT sum(calls) FROM api_totals WHERE run_id=?1") == 361);
}

TEST_CASE("GPU analyzers on a CPU-only run write no GPU numbers", "[gpu][samples]") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto r = kineto_ingest(cpu_only_sample(), collectors::Mode::strict);
  analyze_gpu(r);
  auto st = r.db->prepare(
      "SELECT step, computing_us IS NULL, comm_us IS NULL, free_us IS NULL, dataloader_us IS "
      "NULL FROM steps WHERE run_id=?1 AND source='gpu_breakdown'");
  st.bind(1, r.run);
  REQUIRE(st.step());
  CHECK(st.int64(0) == 551);
  CHECK(st.int64(1) == 1);
  CHECK(st.int64(2) == 1);
  CHECK(st.int64(3) == 1);
  CHECK(st.int64(4) == 1);
  CHECK(r.count("SELECT count(*) FROM gpu_launch_stats WHERE run_id=?1") == 0);
  CHECK(r.count("SELECT count(*) FROM gpu_streams WHERE run_id=?1") == 0);
}

TEST_CASE("Kernels that straddle steps count in each step for the part inside it", "[gpu]") {
  // Step 1 is [0, 100) us and step 2 [100, 200) us; kernel A runs [50, 150), B [10, 30),
  // C [150, 160). Each step window must see A clipped to it, however far A started before.
  const char* trace = R"J({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
  {"ph": "X", "cat": "kernel", "name": "A", "pid": 0, "tid": 7, "ts": 50, "dur": 100,
   "args": {"device": 0, "stream": 7}},
  {"ph": "X", "cat": "kernel", "name": "B", "pid": 0, "tid": 7, "ts": 10, "dur": 20,
   "args": {"device": 0, "stream": 7}},
  {"ph": "X", "cat": "kernel", "name": "C", "pid": 0, "tid": 8, "ts": 150, "dur": 10,
   "args": {"device": 0, "stream": 8}}
  ]})J";
  TempDir dir;
  auto r = kineto_ingest(dir.write("straddle.json", trace), collectors::Mode::strict);
  analyze_gpu(r);
  CHECK(r.text("SELECT group_concat(step || ':' || computing_us || ':' || free_us, ' ') FROM "
               "(SELECT * FROM steps WHERE run_id=?1 AND source='gpu_breakdown' ORDER BY step)") ==
        "1:70.0:30.0 2:60.0:40.0");
}

TEST_CASE("The step breakdown does not depend on the order of the activities in the trace",
          "[gpu]") {
  // Three steps; stream 7's kernels listed before stream 20's (two runs of ascending start, each
  // searched for each step), or all by start: the same rows.
  auto trace = [](bool by_stream) {
    std::string events =
        R"J({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 200, "dur": 100})J";
    std::vector<std::pair<int, int>> kernels;  // (start us, stream)
    for (int stream : {7, 20})
      for (int i = 0; i < 15; ++i) kernels.emplace_back(i * 20 + (stream == 20 ? 7 : 0), stream);
    if (!by_stream) std::sort(kernels.begin(), kernels.end());
    for (auto [ts, stream] : kernels)
      events += std::string(R"J(, {"ph": "X", "cat": "kernel", "name": ")J") +
                (stream == 20 ? "ncclKernel" : "gemm") + R"J(", "pid": 0, "tid": 1, "ts": )J" +
                std::to_string(ts) + R"J(, "dur": 15, "args": {"device": 0, "stream": )J" +
                std::to_string(stream) + "}}";
    return R"J({"traceEvents": [)J" + events + "]}";
  };
  auto rows = [](Ingested& r) {
    return r.text(
               "SELECT group_concat(step || ':' || computing_us || ':' || comm_us || ':' || "
               "overlapped_us || ':' || free_us, ' ') FROM (SELECT * FROM steps WHERE run_id=?1 "
               "AND source='gpu_breakdown' ORDER BY step)") +
           " | " +
           r.text(
               "SELECT group_concat(step || ':' || stream || ':' || kernels || ':' || busy_us, ' "
               "') "
               "FROM (SELECT * FROM gpu_streams WHERE run_id=?1 ORDER BY step, stream)");
  };
  TempDir dir;
  auto by_stream =
      kineto_ingest(dir.write("by_stream.json", trace(true)), collectors::Mode::strict);
  auto by_start = kineto_ingest(dir.write("by_start.json", trace(false)), collectors::Mode::strict);
  analyze_gpu(by_stream);
  analyze_gpu(by_start);
  CHECK(rows(by_stream) == rows(by_start));
  // Stream 20's kernel at 87 us straddles steps 1 and 2, its 187 us one steps 2 and 3.
  CHECK(rows(by_start) ==
        "1:75.0:73.0:48.0:0.0 2:75.0:75.0:50.0:0.0 3:75.0:75.0:50.0:0.0 | 1:7:5:75.0 1:20:5:73.0 "
        "2:7:5:75.0 2:20:6:75.0 3:7:5:75.0 3:20:6:75.0");
}

TEST_CASE("Kernel groups: per kernel name, launching op and op types", "[gpu]") {
  // Two launches of one op (External id 1 and 3, same name and types) are one group; an op
  // whose External id is shared by two CPU ops takes the smaller name; a kernel without an
  // External id, or with one no CPU op has, is a group without op.
  const char* trace = R"J({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 10, "args": {"External id": 1, "Input type": ["float", "float"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 10, "args": {"External id": 3, "Input type": ["float", "float"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 40, "dur": 10, "args": {"External id": 5}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 41, "dur": 5, "args": {"External id": 5}},
  {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 1, "dur": 4, "args": {"External id": 1, "device": 0, "stream": 7, "est. achieved occupancy %": 50}},
  {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 21, "dur": 6, "args": {"External id": 3, "device": 0, "stream": 7, "est. achieved occupancy %": 25, "blocks per SM": 2.0}},
  {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 42, "dur": 2, "args": {"External id": 5, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "kernel", "name": "fill", "pid": 0, "tid": 7, "ts": 50, "dur": 1, "args": {"device": 0, "stream": 7}},
  {"ph": "X", "cat": "kernel", "name": "fill", "pid": 0, "tid": 7, "ts": 52, "dur": 1, "args": {"External id": 99, "device": 0, "stream": 7}}
 ]})J";
  TempDir dir;
  auto r = kineto_ingest(dir.write("t.json", trace), collectors::Mode::strict);
  analyze_gpu(r);
  CHECK(r.count("SELECT count(*) FROM kernel_groups WHERE run_id=?1") == 3);
  CHECK(r.text("SELECT kernels || ':' || dur_ns || ':' || occ_ns || ':' || occ_weight || ':' || "
               "bps_sum || ':' || bps_n || ':' || types FROM kernel_groups "
               "WHERE run_id=?1 AND op = 'aten::mm'") ==
        "2:10000:350000.0:10000:2.0:1:[\"float\",\"float\"]");
  CHECK(
      r.text("SELECT kernels || ':' || coalesce(occ_ns, 'null') || ':' || "
             "coalesce(types, 'null') FROM kernel_groups WHERE run_id=?1 AND op = 'aten::addmm'") ==
      "1:null:null");
  CHECK(r.text("SELECT name || ':' || kernels || ':' || dur_ns FROM kernel_groups "
               "WHERE run_id=?1 AND op IS NULL") == "fill:2:2000");
}

TEST_CASE("Kernels whose External id is their correlation id are linked through the launch call",
          "[gpu]") {
  // Older PyTorch: a kernel's "External id" repeats its correlation id. Its op is the innermost
  // cpu_op on the launching thread whose span contains the runtime call with that correlation;
  // a call outside every op, or on another thread than the op, leaves the kernel without op.
  const char* trace = R"J({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 0, "dur": 50, "args": {"External id": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 5, "dur": 20, "args": {"External id": 2, "Input type": ["float"]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 3, "args": {"External id": 7, "correlation": 7}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 3, "args": {"External id": 8, "correlation": 8}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 60, "dur": 3, "args": {"External id": 9, "correlation": 9}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 2, "ts": 65, "dur": 20, "args": {"External id": 3}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 70, "dur": 3, "args": {"External id": 10, "correlation": 10}},
  {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 100, "dur": 4, "args": {"External id": 7, "correlation": 7, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "kernel", "name": "bias", "pid": 0, "tid": 7, "ts": 110, "dur": 2, "args": {"External id": 8, "correlation": 8, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "kernel", "name": "stray", "pid": 0, "tid": 7, "ts": 120, "dur": 1, "args": {"External id": 9, "correlation": 9, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "kernel", "name": "other_thread", "pid": 0, "tid": 7, "ts": 130, "dur": 1, "args": {"External id": 10, "correlation": 10, "device": 0, "stream": 7}}
 ]})J";
  TempDir dir;
  auto r = kineto_ingest(dir.write("old.json", trace), collectors::Mode::strict);
  analyze_gpu(r);
  CHECK(r.text("SELECT group_concat(name || ':' || coalesce(op, '-') || ':' || "
               "coalesce(types, '-'), ' ') FROM (SELECT * FROM kernel_groups WHERE run_id=?1 "
               "ORDER BY name)") ==
        "bias:aten::linear:- other_thread:-:- sgemm:aten::addmm:[\"float\"] stray:-:-");
}
