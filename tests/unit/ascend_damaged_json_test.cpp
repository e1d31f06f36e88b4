// Damaged Ascend JSON files (invalid UTF-8, unclosed strings, truncation, missing commas): a
// ParseError naming the file and byte offset, or in lenient mode the events before the damage;
// never a crash. The inputs are generated here; ../shared/crashers holds the ones first found.
#include "ascend_test_util.h"

using namespace perfsage::collectors;
using perfsage::test::Store;
using perfsage::test::TempDir;

namespace {

const std::string kInfo =
    R"({"platform_version":"5","DeviceInfo":[{"id":1,"env_type":3,"ai_core_num":24,)"
    R"("aiv_num":48,"aic_frequency":"1800","hwts_frequency":"50"}]})";
const std::string kCommunication =
    R"J({"step1": {"collective": {"hcom_allReduce__445_2@12345": {"Communication Time Info": )J"
    R"J({"Start Timestamp(us)": 1699529623114016.8, "Elapse Time(ms)": 1.47084}}}}})J";
const std::string kFusion =
    R"([{"session_and_graph_id":"0_11","graph_fusion":{"ConstToAttrGatherV2Fusion":)"
    R"({"match_times":"1","effect_times":"0","repository_hit_times":"0"}}}])";

// The message of the ParseError that ingesting `path` throws (fails the test when none is).
std::string parse_error(const std::filesystem::path& path, Mode mode = Mode::strict) {
  Store s;
  try {
    s.ingest({path}, mode);
  } catch (const ParseError& e) {
    return e.what();
  }
  FAIL("no ParseError for " << path);
  return {};
}

}  // namespace

TEST_CASE("info, communication and fusion_result JSON: stage-1 damage names its byte offset") {
  TempDir dir;
  struct File {
    std::string name, text;
  };
  for (const File& f :
       {File{"PROF_1/device_1/info.json.1", kInfo}, File{"communication.json", kCommunication},
        File{"fusion_result.json", kFusion}}) {
    INFO(f.name);
    Store good;
    good.ingest({dir.write("good/" + f.name, f.text)});

    // One invalid UTF-8 byte inside the first key after the head the detector reads.
    std::string utf8 = f.text;
    size_t bad = utf8.rfind('"') - 1;
    utf8[bad] = '\xFF';
    CHECK_THAT(parse_error(dir.write("utf8/" + f.name, utf8)),
               Catch::Contains(f.name.substr(f.name.rfind('/') + 1) + ":byte offset " +
                               std::to_string(bad) + ": "));

    // A string that never closes: the offset of its opening quote.
    std::string unclosed = f.text.substr(0, bad);
    size_t quote = unclosed.rfind('"');
    CHECK_THAT(parse_error(dir.write("unclosed/" + f.name, unclosed)),
               Catch::Contains("byte offset " + std::to_string(quote) + ": "));

    // Cut at every third byte of the second half: an error naming the file, never a crash.
    for (size_t cut = f.text.size() / 2; cut < f.text.size(); cut += 3) {
      INFO("cut at " << cut);
      auto path = dir.write("cut" + std::to_string(cut) + "/" + f.name, f.text.substr(0, cut));
      for (Mode mode : {Mode::strict, Mode::lenient}) {
        Store s;
        try {
          s.ingest({path}, mode);
        } catch (const ParseError& e) {
          CHECK_THAT(e.what(), Catch::Contains(path.string()));
        }
      }
    }
  }
}

namespace {
const std::string kTimelineHead =
    R"([{"ph":"M","name":"process_name","pid":1,"args":{"name":"Ascend Hardware"}},)"
    R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":"1","dur":1,"args":{"Task Type":"AI_CORE"}},)"
    R"({"ph":"X","name":"b","pid":1,"tid":1,"ts":"3","dur":1,"args":{"Task Type":"AI_CORE"}})";
}  // namespace

TEST_CASE("timeline in lenient mode keeps the events before any kind of damage") {
  TempDir dir;
  struct Damage {
    std::string what, tail;
  };
  int n = 0;
  for (const Damage& d : {
           Damage{"array cut cleanly after a complete event", ","},
           Damage{"array cut inside an event", R"(,{"ph":"X","name":"c","pid":1,)"},
           Damage{"array cut inside a string", R"(,{"ph":"X","name":"c)"},
           Damage{"missing comma in the next event", R"(,{"ph":"X","name":"c" "pid":1}])"},
           Damage{"invalid UTF-8 in the next event", ",{\"ph\":\"X\",\"name\":\"\xC0\"}]"},
       }) {
    INFO(d.what);
    auto p = dir.write(std::to_string(n++) + "/trace_view.json", kTimelineHead + d.tail);
    CHECK_THAT(parse_error(p), Catch::Contains("trace_view.json:byte offset"));
    Store s;
    s.ingest({p}, Mode::lenient);
    CHECK(s.integer("SELECT count(*) FROM device_events WHERE kind='kernel'") == 2);
    CHECK(s.text("SELECT group_concat(name) FROM device_events WHERE kind='kernel'") == "a,b");
    REQUIRE(s.result.files.size() == 1);
    CHECK(s.result.files[0].skipped == 1);
  }
}

TEST_CASE("timeline in object form cut inside traceEvents keeps the events before the cut") {
  TempDir dir;
  std::string text = R"({"traceEvents": )" + kTimelineHead + R"(,{"ph":"X","na)";
  auto p = dir.write("trace_view.json", text);
  Store s;
  s.ingest({p}, Mode::lenient);
  CHECK(s.integer("SELECT count(*) FROM device_events WHERE kind='kernel'") == 2);
}

TEST_CASE("timeline damaged before its first complete event: nothing usable in either mode") {
  TempDir dir;
  auto p = dir.write("trace_view.json", R"([{"ph":"X","name":"a","pid":1,"ts":"1",)");
  CHECK_THAT(parse_error(p), Catch::Contains("byte offset"));
  CHECK_THAT(parse_error(p, Mode::lenient),
             Catch::Contains("no usable record (1 skipped; 1 malformed JSON") &&
                 Catch::Contains("(first at byte offset"));
}
