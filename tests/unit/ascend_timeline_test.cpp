#include <fstream>

#include "ascend_test_util.h"

using namespace perfsage::collectors;
using perfsage::test::ascend_sample;
using perfsage::test::Store;
using perfsage::test::TempDir;

TEST_CASE("trace_view sample: API calls, the profiler step, AI CPU device tasks, overlap") {
  PERFSAGE_REQUIRE_SAMPLES();
  Store s;
  s.ingest({ascend_sample("mstt/trace_view.json")});
  CHECK(s.result.files.at(0).collector == "ascend.timeline");
  CHECK(s.result.hints.device == "ascend");

  const std::string compile =
      "FROM host_events WHERE kind='api' AND "
      "name='AscendCL@aclopCompileAndExecute'";
  CHECK(s.integer("SELECT count(*) " + compile) == 11);
  CHECK(s.real("SELECT sum(dur_ns) " + compile) / 1000.0 == Approx(6637).margin(1));
  CHECK(s.integer("SELECT count(*) FROM host_events WHERE kind='api' AND "
                  "name='AscendCL@aclrtSynchronizeStream'") == 4);

  CHECK(s.integer("SELECT count(*) FROM steps") == 1);
  CHECK(s.integer("SELECT step FROM steps") == 1);
  CHECK(s.text("SELECT source FROM steps") == "ProfilerStep");
  CHECK(s.real("SELECT dur_ns FROM steps") / 1000.0 == Approx(14092).margin(1));
  // Overlap Analysis inside the step: about 1,788 us computing, 9,482 us free.
  CHECK(s.real("SELECT computing_us FROM steps") == Approx(1788).margin(5));
  CHECK(s.real("SELECT free_us FROM steps") == Approx(9482).margin(5));
  CHECK(s.real("SELECT dataloader_us FROM steps") > 0);
  CHECK(s.real("SELECT optimizer_us FROM steps") == Approx(2411).margin(2));

  CHECK(s.integer("SELECT count(*) FROM device_events WHERE kind='kernel' AND "
                  "json_extract(args, '$.\"Task Type\"')='AI_CPU'") == 2);
  CHECK(s.integer("SELECT count(*) FROM device_events WHERE kind='kernel'") == 276);
  CHECK(s.integer("SELECT count(*) FROM device_events WHERE kind='overlap'") == 547);
  CHECK(s.integer("SELECT count(*) FROM device_events WHERE kind='kernel' AND stream=3") == 276);
  // HostToDevice flows: the CANN call and the device task it launched share the correlation;
  // async_npu flows give the task the framework op's id as external_id.
  CHECK(s.integer("SELECT count(DISTINCT d.rowid) FROM device_events d JOIN host_events h "
                  "ON h.kind='api' AND h.correlation=d.correlation WHERE d.kind='kernel'") > 100);
  CHECK(s.integer("SELECT count(*) FROM device_events WHERE external_id IS NOT NULL") == 274);
  CHECK(s.integer("SELECT count(*) FROM host_events WHERE kind='user_annotation' AND "
                  "name LIKE 'Optimizer.step#%'") == 1);
  // Exact string timestamps: the first event starts at "1704161511420306.491".
  CHECK(s.integer("SELECT count(*) FROM device_events WHERE kind='kernel' AND external_id > "
                  "9007199254740992") > 0);  // ids above 2^53 kept exact
  CHECK(s.integer("SELECT count(*) FROM host_events WHERE name='aten::empty' AND "
                  "start_ns=1704161511420306491") == 1);
}

namespace {
std::string sample_text(const std::string& name) {
  std::ifstream in(ascend_sample(name), std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

TEST_CASE("truncated timeline: strict names the byte offset, lenient keeps what came before") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  std::string text = sample_text("mstt/trace_view.json");
  // Cut just after a complete event so the string structure is intact but the array is not.
  size_t cut = text.find("}, {", text.size() / 2) + 1;
  auto p = dir.write("trace_view.json", text.substr(0, cut));
  Store strict;
  CHECK_THROWS_WITH(strict.ingest({p}), Catch::Contains("trace_view.json:byte offset"));
  CHECK(strict.integer("SELECT count(*) FROM host_events") == 0);

  auto q = dir.write("mid/trace_view.json", text.substr(0, text.size() / 3));
  CHECK_THROWS_WITH(strict.ingest({q}), Catch::Contains("byte offset"));
}

TEST_CASE("timeline in object form, numeric ts, string pids, metadata last, unknown phases") {
  TempDir dir;
  auto p = dir.write("x/msprof_20240101000000.json", R"({"traceEvents": [
    {"ph":"X","name":"AscendCL@aclrtSynchronizeStream","pid":"cann","tid":7,"ts":100.5,"dur":2,
     "args":{"connection_id":5,"Mode":"ACL_RTS"}},
    {"ph":"X","name":"MatMul","pid":9,"tid":1,"ts":"101.25","dur":1.0005,
     "args":{"Task Type":"AI_CORE","Stream Id":4,"connection_id":5}},
    {"ph":"X","name":"bad","pid":9,"tid":1,"dur":1},
    {"ph":"s","name":"HostToDevice5","id":"5","pid":"cann","tid":7,"ts":"100.5","cat":"HostToDevice"},
    {"ph":"C","name":"AI Core Freq","pid":12,"ts":"100","args":{"MHz":1800}},
    {"ph":"M","name":"process_name","pid":"cann","args":{"name":"CANN"}},
    {"ph":"M","name":"process_name","pid":9,"args":{"name":"Ascend Hardware"}}
  ], "displayTimeUnit": "ns"})");
  Store strict;
  CHECK_THROWS_WITH(strict.ingest({p}),
                    Catch::Contains("event 2") && Catch::Contains("missing or bad ts"));
  Store s;
  s.ingest({p}, Mode::lenient);
  CHECK(s.result.hints.framework == "msprof");
  CHECK(s.integer("SELECT start_ns FROM host_events WHERE kind='api'") == 100500);
  CHECK(s.text("SELECT pid FROM host_events") == "<null>");
  CHECK(s.integer("SELECT dur_ns FROM device_events") == 1001);  // 1.0005 us rounds up
  CHECK(s.integer("SELECT stream FROM device_events") == 4);
  CHECK(s.integer("SELECT correlation FROM device_events") == 5);
  const auto& f = s.result.files.at(0);
  CHECK(f.skipped == 1);
  std::string all;
  for (const auto& w : f.warnings) all += w + "\n";
  CHECK_THAT(all, Catch::Contains("1 flow event not stored"));
  CHECK_THAT(all, Catch::Contains("1 ph 'C' event not stored"));
}

TEST_CASE("timeline: empty file, wrong top level and garbage are clear errors") {
  TempDir dir;
  Store s;
  CHECK_THROWS_WITH(s.ingest({dir.write("a/trace_view.json", "[]\n")}),
                    Catch::Contains("unrecognised"));  // no events: not a timeline
  CHECK_THROWS_WITH(s.ingest({dir.write("b/trace_view.json", "[{\"ph\":\"X\", \"ts\": }]")}),
                    Catch::Contains("trace_view.json:byte offset"));
  std::string junk = "[{\"ph\":\"X\"";
  for (int i = 0; i < 1000; ++i) junk += static_cast<char>(i % 256);
  CHECK_THROWS_WITH(s.ingest({dir.write("c/trace_view.json", junk)}),
                    Catch::Contains("byte offset"));
}

TEST_CASE("timeline and op table cut at many points: a result or a ParseError, never a crash") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  for (const char* name : {"mstt/trace_view.json", "mstt/kernel_details_arith_util.csv"}) {
    std::string text = sample_text(name);
    std::string file = std::string(name).find(".json") != std::string::npos ? "trace_view.json"
                                                                            : "kernel_details.csv";
    for (int i = 1; i <= 40; ++i) {
      size_t cut = text.size() * static_cast<size_t>(i) / 41 + static_cast<size_t>(i * 7);
      auto p = dir.write("cut" + std::to_string(i) + "/" + file, text.substr(0, cut));
      for (Mode mode : {Mode::strict, Mode::lenient}) {
        Store s;
        try {
          s.ingest({p}, mode);
        } catch (const ParseError& e) {
          CHECK_THAT(e.what(), Catch::Contains(file));
        }
      }
    }
  }
}
