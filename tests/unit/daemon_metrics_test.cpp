// Prometheus rendering and the daemon's length-prefixed IPC framing.
#include <fcntl.h>
#include <unistd.h>

#include "daemon/ipc.h"
#include "daemon/ipc.pb.h"
#include "daemon/metrics.h"
#include "test_support.h"

using namespace perfsage::daemon;

TEST_CASE("metrics render as Prometheus text with help, type, labels and the histogram") {
  Metrics m;
  m.add("perfsage_findings_total", 2, {{"pack", "roofline"}, {"severity", "high"}});
  m.add("perfsage_findings_total", 1, {{"pack", "roofline"}, {"severity", "high"}});
  m.add("perfsage_worker_restarts_total", 1, {{"reason", "signal"}});
  m.observe_analysis_seconds(0.3);
  m.observe_analysis_seconds(7);
  std::string text = m.render({{"perfsage_jobs", {{{{"state", "queued"}}, 4}}}});
  CHECK_THAT(text, Catch::Contains("# TYPE perfsage_findings_total counter\n"));
  CHECK_THAT(text,
             Catch::Contains("perfsage_findings_total{pack=\"roofline\",severity=\"high\"} 3\n"));
  CHECK_THAT(text, Catch::Contains("perfsage_worker_restarts_total{reason=\"signal\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("perfsage_jobs{state=\"queued\"} 4\n"));
  CHECK_THAT(text, Catch::Contains("perfsage_pack_load_failures_total 0\n"));
  CHECK_THAT(text, Catch::Contains("perfsage_analysis_duration_seconds_bucket{le=\"0.25\"} 0\n"));
  CHECK_THAT(text, Catch::Contains("perfsage_analysis_duration_seconds_bucket{le=\"0.5\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("perfsage_analysis_duration_seconds_bucket{le=\"10\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("perfsage_analysis_duration_seconds_bucket{le=\"+Inf\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("perfsage_analysis_duration_seconds_count 2\n"));
  CHECK(m.value("perfsage_findings_total", {{"pack", "roofline"}, {"severity", "high"}}) == 3);
  m.set("perfsage_runs_pending", 2);
  CHECK_THAT(m.render(), Catch::Contains("perfsage_runs_pending 2\n"));
  CHECK_THROWS_AS(m.add("perfsage_typo_total", 1), std::logic_error);
  // Label values are escaped.
  m.add("perfsage_findings_total", 1, {{"pack", "a\"b\\c"}, {"severity", "low"}});
  CHECK_THAT(m.render(), Catch::Contains("pack=\"a\\\"b\\\\c\""));
}

TEST_CASE("IPC messages survive partial reads and a bad size is an error, not a huge buffer") {
  int p[2];
  REQUIRE(::pipe(p) == 0);
  ::fcntl(p[0], F_SETFL, O_NONBLOCK);
  ipc::FromWorker a, b;
  a.mutable_progress()->set_stage("ingest");
  a.mutable_progress()->set_fraction(0.5);
  b.mutable_result()->set_ok(true);
  b.mutable_result()->set_run_id(42);
  std::string bytes;
  {
    int q[2];
    REQUIRE(::pipe(q) == 0);
    REQUIRE(write_message(q[1], a));
    REQUIRE(write_message(q[1], b));
    ::close(q[1]);
    char buf[256];
    ssize_t n;
    while ((n = ::read(q[0], buf, sizeof buf)) > 0) bytes.append(buf, static_cast<size_t>(n));
    ::close(q[0]);
  }
  MessageReader reader;
  ipc::FromWorker got;
  // One byte at a time: the reader keeps what it has until a message is whole.
  int messages = 0;
  for (char c : bytes) {
    REQUIRE(::write(p[1], &c, 1) == 1);
    while (reader.read(p[0], got) == MessageReader::Status::message) {
      ++messages;
      if (messages == 1) CHECK(got.progress().stage() == "ingest");
      if (messages == 2) CHECK(got.result().run_id() == 42);
    }
  }
  CHECK(messages == 2);
  ::close(p[1]);
  CHECK(reader.read(p[0], got) == MessageReader::Status::closed);
  ::close(p[0]);

  REQUIRE(::pipe(p) == 0);
  ::fcntl(p[0], F_SETFL, O_NONBLOCK);
  const char huge[] = {'\xff', '\xff', '\xff', '\x7f', 'x'};
  REQUIRE(::write(p[1], huge, sizeof huge) == static_cast<ssize_t>(sizeof huge));
  MessageReader bad;
  CHECK(bad.read(p[0], got) == MessageReader::Status::error);
  ::close(p[0]);
  ::close(p[1]);
}
