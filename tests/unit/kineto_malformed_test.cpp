// The Kineto collector on broken traces: strict mode names the byte offset and what was
// expected; lenient mode keeps what it can and counts what it skipped or repaired.
#include "kineto_test_util.h"

using namespace perfsage;
using namespace perfsage::test;
using collectors::Mode;
using collectors::ParseError;

namespace {

std::string event(int i, const std::string& name = "aten::add") {
  return R"({"ph": "X", "cat": "cpu_op", "name": ")" + name + R"(", "pid": 1, "tid": 1, "ts": )" +
         std::to_string(100 + i) + R"(, "dur": 1, "args": {"External id": )" + std::to_string(i) +
         "}}";
}

std::string trace(const std::vector<std::string>& events, const std::string& tail = "]}") {
  std::string s = R"({"schemaVersion": 1, "distributedInfo": {"rank": 1}, "traceEvents": [)";
  for (size_t i = 0; i < events.size(); ++i) s += (i ? ",\n" : "\n") + events[i];
  return s + "\n" + tail;
}

std::string strict_error(const std::filesystem::path& p) {
  try {
    kineto_ingest(p, Mode::strict);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "no error";
}

int64_t cpu_ops(const Ingested& r) {
  return r.count("SELECT count(*) FROM host_events WHERE run_id=?1 AND kind='cpu_op'");
}

}  // namespace

TEST_CASE("Truncated object-form trace", "[kineto][malformed]") {
  TempDir dir;
  std::string full = trace({event(1), event(2), event(3)});
  // Cut inside the third event.
  auto path = dir.write("t.json", full.substr(0, full.rfind("\"dur\"")));
  std::string err = strict_error(path);
  CHECK(err.find("byte") != std::string::npos);
  CHECK(err.find("truncated") != std::string::npos);
  auto r = kineto_ingest(path, Mode::lenient);
  CHECK(cpu_ops(r) == 2);
  CHECK(r.skipped == 1);
  CHECK(r.report_mentions("cut off by the end of the file"));
  CHECK(r.report_mentions("truncated"));

  // Truncated gzip stream: the inflater reports it.
  auto gz = write_gz(dir, "t.json.gz", full);
  auto size = std::filesystem::file_size(gz);
  std::filesystem::resize_file(gz, size - 12);
  CHECK_THROWS_AS(kineto_ingest(gz, Mode::lenient), ParseError);
}

TEST_CASE("Invalid UTF-8 in an event name", "[kineto][malformed]") {
  TempDir dir;
  auto path = dir.write("u.json", trace({event(1), event(2, "bad\xC3\x28name"), event(3)}));
  std::string err = strict_error(path);
  CHECK(err.find("byte") != std::string::npos);
  CHECK(err.find("event 1") != std::string::npos);
  auto r = kineto_ingest(path, Mode::lenient);
  CHECK(cpu_ops(r) == 3);
  CHECK(r.report_mentions("invalid UTF-8"));
  CHECK(r.text("SELECT name FROM host_events WHERE run_id=?1 AND external_id=2") ==
        "bad\xEF\xBF\xBD(name");
}

TEST_CASE("Escaped names are stored unescaped; plain ones as written", "[kineto]") {
  TempDir dir;
  auto path = dir.write("e.json", trace({event(1, R"(a \"quoted\" op\\x \u00e9\n)"),
                                         event(2, "aten::mm"), event(3, R"(\/path)")}));
  for (Mode mode : {Mode::strict, Mode::lenient}) {
    auto r = kineto_ingest(path, mode);
    CHECK(r.text("SELECT name FROM host_events WHERE run_id=?1 AND external_id=1") ==
          "a \"quoted\" op\\x \xC3\xA9\n");
    CHECK(r.text("SELECT name FROM host_events WHERE run_id=?1 AND external_id=2") == "aten::mm");
    CHECK(r.text("SELECT name FROM host_events WHERE run_id=?1 AND external_id=3") == "/path");
  }
}

TEST_CASE("Unescaped quotes inside a name", "[kineto][malformed]") {
  TempDir dir;
  auto path = dir.write(
      "q.json", trace({event(1), event(2, R"(torch/_dynamo "eval_frame.py" line 3)"), event(3)}));
  CHECK(strict_error(path).find("byte") != std::string::npos);
  auto r = kineto_ingest(path, Mode::lenient);
  CHECK(cpu_ops(r) == 3);
  CHECK(r.report_mentions("unescaped quotes"));
  CHECK(r.text("SELECT name FROM host_events WHERE run_id=?1 AND external_id=2") ==
        R"(torch/_dynamo "eval_frame.py" line 3)");
}

TEST_CASE("An odd number of unescaped quotes damages one event only", "[kineto][malformed]") {
  TempDir dir;
  auto path = dir.write("q1.json", trace({event(1), event(2, R"(say "hi)"), event(3)}));
  auto r = kineto_ingest(path, Mode::lenient);
  CHECK(cpu_ops(r) == 3);
  CHECK(r.text("SELECT name FROM host_events WHERE run_id=?1 AND external_id=2") == R"(say "hi)");
}

TEST_CASE("Bare N/A values and integers beyond 64 bits", "[kineto][malformed]") {
  TempDir dir;
  std::string bad =
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5, "dur": 2,
          "args": {"correlation": 99999999999999999999999, "blocks per SM": N/A, "device": 0}})";
  auto path = dir.write("n.json", trace({event(1), bad}));
  std::string err = strict_error(path);
  CHECK(err.find("event 1") != std::string::npos);
  auto r = kineto_ingest(path, Mode::lenient);
  CHECK(r.report_mentions("N/A replaced by null"));
  // The oversized id is kept verbatim in args; the column stays empty rather than wrong.
  CHECK(r.text("SELECT correlation FROM device_events WHERE run_id=?1") == "<null>");
  CHECK(r.text("SELECT args FROM device_events WHERE run_id=?1") ==
        "{\"correlation\":99999999999999999999999,\"blocks per SM\":null}");
}

TEST_CASE("Elements that are not usable events are skipped and counted", "[kineto][malformed]") {
  TempDir dir;
  auto path = dir.write(
      "s.json", trace({event(1), "42", R"({"ph": "X", "cat": "cpu_op", "name": "no ts"})",
                       R"({"ph": "X", "cat": "cpu_op", "name": "a", "ts": "soon"})", event(2)}));
  CHECK(strict_error(path).find("byte") != std::string::npos);
  auto r = kineto_ingest(path, Mode::lenient);
  CHECK(cpu_ops(r) == 2);
  CHECK(r.skipped == 3);
  CHECK(r.report_mentions("not an event object"));
  CHECK(r.report_mentions("without \"ts\""));
}

TEST_CASE("Bad events deep inside a large trace do not disturb the others", "[kineto][malformed]") {
  TempDir dir;
  std::vector<std::string> events;
  for (int i = 0; i < 5000; ++i) {
    events.push_back(i % 997 == 500 ? event(i, std::string("x\xFF") + "y") : event(i));
  }
  auto path = dir.write("big.json", trace(events));
  // With two parsers a chunk that needs repairs sends the whole file to the sequential reader.
  for (int parsers : {1, 2}) {
    INFO(parsers << " parser(s)");
    collectors::kineto::KinetoOptions opt;
    opt.chunk_bytes = 16 * 1024;
    opt.parsers = parsers;
    auto r = kineto_ingest(path, Mode::lenient, opt);
    CHECK(cpu_ops(r) == 5000);
    CHECK(r.count("SELECT count(DISTINCT external_id) FROM host_events WHERE run_id=?1") == 5000);
    CHECK(r.report_mentions("repaired 5 events: invalid UTF-8"));
    // Strict mode names the first bad event whichever parser met it.
    try {
      kineto_ingest(path, Mode::strict, opt);
      FAIL("a malformed event was accepted in strict mode");
    } catch (const ParseError& e) {
      CHECK_THAT(e.what(), Catch::Contains("event 500"));
    }
  }
}

TEST_CASE("Not a trace at all", "[kineto][malformed]") {
  TempDir dir;
  CHECK_THROWS_AS(kineto_ingest(dir.write("a.json", R"({"model": "x"})"), Mode::lenient),
                  ParseError);
  CHECK_THROWS_AS(kineto_ingest(dir.write("b.json", "hello"), Mode::lenient), ParseError);
  CHECK_THROWS_AS(kineto_ingest(dir.write("c.json", ""), Mode::lenient), ParseError);
  std::string binary("\x00\x01\x02\xFF{[\"", 7);
  CHECK_THROWS_AS(kineto_ingest(dir.write("d.json", binary), Mode::lenient), ParseError);
}
