// The Kineto collector on the real sample traces (read in place from ../shared/samples).
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include "collectors/kineto/trace_buffer.h"
#include "kineto_test_util.h"

using namespace perfsage;
using namespace perfsage::test;
using collectors::Mode;

TEST_CASE("AlexNet trace: kernels, copies, hardware, rank and links", "[kineto][samples]") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto r = kineto_ingest(alexnet_sample(), Mode::strict);
  auto dev = [&](const std::string& kind) {
    return r.count("SELECT count(*) FROM device_events WHERE run_id=?1 AND kind='" + kind + "'");
  };
  CHECK(dev("kernel") == 79);
  CHECK(dev("memcpy") == 16);
  CHECK(dev("memset") == 3);
  CHECK(dev("sync") == 41);
  CHECK(r.count("SELECT count(*) FROM device_events WHERE run_id=?1 AND kind='memcpy' AND "
                "memcpy_kind='HtoD Pageable'") == 16);
  CHECK(r.count("SELECT count(*) FROM host_events WHERE run_id=?1 AND kind='runtime'") == 361);
  CHECK(r.count("SELECT count(*) FROM host_events WHERE run_id=?1 AND kind='cpu_op'") == 359);
  CHECK(r.count("SELECT count(*) FROM host_events WHERE run_id=?1 AND kind='user_annotation'") ==
        8);
  CHECK(r.count("SELECT count(*) FROM host_events WHERE run_id=?1 AND "
                "name='cudaStreamSynchronize'") == 16);
  CHECK(r.count("SELECT count(*) FROM host_events WHERE run_id=?1 AND "
                "name='cudaDeviceSynchronize'") == 5);

  // Hardware: all 8 GPUs of the node.
  CHECK(r.count("SELECT count(*) FROM hardware WHERE run_id=?1") == 8);
  CHECK(r.count("SELECT count(*) FROM hardware WHERE run_id=?1 AND name='NVIDIA A100-PG509-200' "
                "AND sm_count=108 AND memory_bytes=42297524224 AND compute_capability='8.0' "
                "AND vendor='NVIDIA'") == 8);
  CHECK(r.count("SELECT rank FROM ranks WHERE run_id=?1") == 0);
  CHECK(r.hints.framework == "pytorch");
  CHECK(r.hints.device == "cuda");
  CHECK(r.hints.chip == "NVIDIA A100-PG509-200");

  // Every kernel links to the runtime call that launched it through its correlation id.
  CHECK(r.count("SELECT count(*) FROM device_events d WHERE d.run_id=?1 AND d.kind='kernel' AND "
                "EXISTS(SELECT 1 FROM host_events h WHERE h.run_id=d.run_id AND h.kind='runtime' "
                "AND h.correlation=d.correlation)") == 79);

  // Kernel launch configuration and occupancy columns.
  auto st = r.db->prepare(
      "SELECT grid, block, registers, shared_mem, blocks_per_sm, warps_per_sm, occupancy, "
      "stream, device, start_ns FROM device_events WHERE run_id=?1 AND kind='kernel' "
      "AND correlation=218");
  st.bind(1, r.run);
  REQUIRE(st.step());
  CHECK(st.text(0) == "[864,1,1]");
  CHECK(st.text(1) == "[256,1,1]");
  CHECK(st.int64(2) == 47);
  CHECK(st.int64(3) == 0);
  CHECK(st.real(4) == Approx(8));
  CHECK(st.real(5) == Approx(64));
  CHECK(st.real(6) == Approx(63));
  CHECK(st.int64(7) == 7);
  CHECK(st.int64(8) == 0);
  // Integer-µs epoch timestamps become ns.
  CHECK(st.int64(9) % 1000 == 0);
  CHECK(st.int64(9) > 1695835500000000000LL);

  // Bytes and bandwidth of copies.
  CHECK(r.count("SELECT count(*) FROM device_events WHERE run_id=?1 AND kind='memcpy' AND "
                "bytes=92928 AND abs(bandwidth_gbps-7.744)<1e-9") >= 1);
  // Orphan flow ends are tolerated and reported.
  CHECK(r.report_mentions("ends have no start"));
}

namespace {

// Rows in storage order, every column that the mapping fills: the parsers' batches must be
// stored in file order.
void same_rows(const Ingested& a, const Ingested& b) {
  const std::string d =
      "SELECT count(*) || ':' || group_concat(kind || '|' || name || '|' || start_ns || '|' || "
      "dur_ns || '|' || coalesce(correlation, '') || '|' || coalesce(external_id, '') || '|' || "
      "coalesce(stream, '') || '|' || coalesce(grid, '') || '|' || coalesce(bytes, ''), ';') "
      "FROM device_events WHERE run_id=?1";
  const std::string h =
      "SELECT count(*) || ':' || group_concat(kind || '|' || name || '|' || start_ns || '|' || "
      "dur_ns || '|' || coalesce(external_id, '') || '|' || coalesce(correlation, '') || '|' || "
      "coalesce(input_dims, '') || '|' || coalesce(args, ''), ';') "
      "FROM host_events WHERE run_id=?1";
  const std::string s =
      "SELECT count(*) || ':' || group_concat(step || '|' || start_ns || '|' || dur_ns, ';') "
      "FROM steps WHERE run_id=?1";
  CHECK(a.text(d) == b.text(d));
  CHECK(a.text(h) == b.text(h));
  CHECK(a.text(s) == b.text(s));
  // Parsers store a block per chunk and kind, the sequential reader fuller blocks: the layout
  // differs, but each block's stored time span must be that of its rows (rowid >> 32 is the
  // block), since time-window queries skip blocks by it.
  for (const Ingested* x : {&a, &b}) {
    const std::string spans =
        "SELECT count(*) FROM event_blocks e JOIN ("
        " SELECT rowid >> 32 AS blk, min(start_ns) AS lo, max(start_ns + dur_ns) AS hi"
        " FROM host_events WHERE run_id = ?1 GROUP BY blk UNION ALL"
        " SELECT rowid >> 32, min(start_ns), max(start_ns + dur_ns)"
        " FROM device_events WHERE run_id = ?1 GROUP BY rowid >> 32) r ON r.blk = e.rowid "
        "WHERE e.min_start_ns = r.lo AND e.max_end_ns = r.hi";
    CHECK(x->count(spans) == x->count("SELECT count(*) FROM event_blocks WHERE run_id = ?1 AND "
                                      "side IN ('host_events', 'device_events')"));
  }
  CHECK(a.records == b.records);
  CHECK(a.report == b.report);
}

// Captures the debug log while alive: it says when a read fell back to the sequential reader
// or shifted times, which equal rows alone would not show.
struct DebugLog {
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink =
      std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64);
  std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
  DebugLog() {
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
    spdlog::set_level(spdlog::level::debug);
  }
  ~DebugLog() {
    spdlog::set_default_logger(previous);
    spdlog::set_level(spdlog::level::info);
  }
  bool mentions(const std::string& what) const {
    for (const auto& line : sink->last_formatted())
      if (line.find(what) != std::string::npos) return true;
    return false;
  }
};

}  // namespace

TEST_CASE("AlexNet trace reads the same single-threaded, with one or two parsers, in small chunks",
          "[kineto][samples]") {
  PERFSAGE_REQUIRE_SAMPLES();
  collectors::kineto::KinetoOptions sequential;
  sequential.threaded = false;
  sequential.chunk_bytes = 4096;
  auto a = kineto_ingest(alexnet_sample(), Mode::strict, sequential);
  // The flows' tally: each parser sorts its flow keys, and the runs are merged.
  std::string flows;
  for (const auto& l : a.report)
    if (l.find("flow ends") != std::string::npos) flows = l;
  REQUIRE(flows.find("ends have no start") != std::string::npos);
  DebugLog log;
  for (int parsers : {1, 2, 3}) {
    for (size_t chunk : {size_t{4096}, size_t{64} << 10, size_t{1} << 20}) {
      // Kinds encoded by the parsers (every kind with 64 events in a chunk, those with an eighth
      // of it) or none, all gathered by the writer: 64 KiB chunks mix both across chunks.
      for (double share : {0.0, 0.125, 1.0}) {
        INFO(parsers << " parser(s), " << chunk << "-byte chunks, share " << share);
        collectors::kineto::KinetoOptions opt;
        opt.parsers = parsers;
        opt.chunk_bytes = chunk;
        opt.parser_block_min_share = share;
        auto b = kineto_ingest(alexnet_sample(), Mode::strict, opt);
        CHECK_FALSE(log.mentions("reading again"));
        same_rows(a, b);
        CHECK(b.report_mentions(flows));
        if (parsers > 1 && chunk == size_t{64} << 10) {
          // A block per chunk for CPU ops when the parsers encode them, one when the writer does.
          int64_t cpu_op_blocks =
              b.count("SELECT count(*) FROM event_blocks WHERE run_id = ?1 AND kind = 'cpu_op'");
          if (share < 1.0) {
            CHECK(cpu_op_blocks > 1);
          } else {
            CHECK(cpu_op_blocks == 1);
          }
        }
      }
    }
  }
}

TEST_CASE("gzip samples read the same when inflated on a thread of their own while parsing",
          "[kineto][samples]") {
  PERFSAGE_REQUIRE_SAMPLES();
  for (const auto& sample : {alexnet_sample(), cpu_only_sample()}) {
    INFO(sample.filename());
    collectors::kineto::KinetoOptions whole;  // inflated before the scan
    whole.overlap_inflate_bytes = 0;
    auto a = kineto_ingest(sample, Mode::strict, whole);
    for (int parsers : {1, 2}) {
      INFO(parsers << " parser(s)");
      DebugLog log;
      collectors::kineto::KinetoOptions opt;
      opt.overlap_inflate_bytes = 1;
      opt.parsers = parsers;
      opt.chunk_bytes = 4096;
      auto b = kineto_ingest(sample, Mode::strict, opt);
      CHECK(std::string(collectors::kineto::TraceBuffer(sample, 1).inflater()) ==
            "zlib, overlapped");
      CHECK_FALSE(log.mentions("reading again"));
      // The CPU-only trace writes its base time after the events: they are stored with the
      // head's guess (none) and shifted once the end is read.
      CHECK(log.mentions("shifting them") == (sample == cpu_only_sample()));
      same_rows(a, b);
    }
  }
}

TEST_CASE("CPU-only trace: rank from distributedInfo, step, base time, no device",
          "[kineto][samples]") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto r = kineto_ingest(cpu_only_sample(), Mode::strict);
  auto st = r.db->prepare("SELECT rank, world_size, backend, source FROM ranks WHERE run_id=?1");
  st.bind(1, r.run);
  REQUIRE(st.step());
  CHECK(st.int64(0) == 34);
  CHECK(st.int64(1) == 300);
  CHECK(st.text(2) == "gloo");
  CHECK(st.text(3) == "distributedInfo");

  auto s = r.db->prepare("SELECT step, source, start_ns, dur_ns, rank FROM steps WHERE run_id=?1");
  s.bind(1, r.run);
  REQUIRE(s.step());
  CHECK(s.int64(0) == 551);
  CHECK(s.text(1) == "ProfilerStep");
  // baseTimeNanoseconds (written after traceEvents) + ts 1212075529876.817 µs, exactly.
  CHECK(s.int64(2) == 1719853884000000000LL + 1212075529876817LL);
  CHECK(s.int64(3) == 210109162);
  CHECK(s.int64(4) == 34);
  CHECK_FALSE(s.step());

  CHECK(r.count("SELECT count(*) FROM hardware WHERE run_id=?1") == 0);
  CHECK(r.count("SELECT count(*) FROM device_events WHERE run_id=?1") == 0);
  CHECK(r.count("SELECT count(*) FROM host_events WHERE run_id=?1 AND kind='user_annotation' "
                "AND name='gloo:all_reduce'") == 10);
  CHECK(r.count("SELECT count(*) FROM host_events WHERE run_id=?1 AND kind='cpu_op'") == 4);
  CHECK(r.text("SELECT input_dims FROM host_events WHERE run_id=?1 AND kind='cpu_op' LIMIT 1") ==
        "[[],[],[],[],[],[]]");
  CHECK(r.text("SELECT input_types FROM host_events WHERE run_id=?1 AND kind='cpu_op' LIMIT 1") ==
        "[\"\",\"\",\"\",\"\",\"Scalar\",\"\"]");
  CHECK(r.hints.device == "cpu");
  CHECK(r.hints.chip.empty());
}

TEST_CASE("Both samples are detected as Kineto traces", "[kineto][samples]") {
  PERFSAGE_REQUIRE_SAMPLES();
  for (const auto& p : {alexnet_sample(), cpu_only_sample()}) {
    auto probe = collectors::probe_file(p);
    CHECK(collectors::kineto::detect_kineto(probe) == 80);
    const auto* c = collectors::detect_collector(probe);
    REQUIRE(c != nullptr);
    CHECK(c->name() == "kineto");
  }
}
