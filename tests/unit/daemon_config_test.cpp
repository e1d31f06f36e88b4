#include <sys/stat.h>

#include "daemon/config.h"
#include "daemon/listen_address.h"
#include "test_support.h"

using namespace perfsage::daemon;
using perfsage::test::TempDir;

namespace {
std::string problems(const DaemonConfigLoad& load) {
  std::string out;
  for (const auto& p : load.problems) out += p.str() + "\n";
  return out;
}
}  // namespace

TEST_CASE("a config named by a relative path gives absolute paths: queue inputs are absolute") {
  // issue 26 item 21: queued runs were relative paths where submitted ones were absolute.
  TempDir dir;
  std::filesystem::create_directory(dir.path() / "runs");
  dir.write("perfsaged.yaml", "daemon:\n  store: perf.db\n  watch:\n    - path: ./runs\n");
  auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  auto load = read_daemon_config("perfsaged.yaml");
  validate(load);
  std::filesystem::current_path(cwd);
  INFO(problems(load));
  REQUIRE(load.ok());
  REQUIRE(load.config.watch.size() == 1);
  CHECK(load.config.watch[0].path.is_absolute());
  CHECK(load.config.watch[0].path.filename() == "runs");  // ./runs, normalised
  CHECK(std::filesystem::equivalent(load.config.watch[0].path, dir.path() / "runs"));
  CHECK(load.config.store.is_absolute());
  CHECK(load.config.queue_store.is_absolute());
}

TEST_CASE("the daemon section is read with units, relative paths and watch roots") {
  TempDir dir;
  std::filesystem::create_directory(dir.path() / "runs");
  auto file = dir.write("perfsaged.yaml", R"(
kb:
  builtin: true
daemon:
  store: perf.db
  listen: 127.0.0.1:0
  workers: 3
  quiet: 1.5s
  debounce: 200ms
  lease: 10s
  fan_out: false
  watch:
    - path: runs
      runs: "*/*"
      job: "{1}"
  job_limits: {memory: 512MiB, cpu: 2m, time: 1h}
  log: {level: debug, max_size: 1MiB}
)");
  auto load = read_daemon_config(file);
  validate(load);
  INFO(problems(load));
  REQUIRE(load.ok());
  const auto& c = load.config;
  CHECK(c.store == dir.path() / "perf.db");
  CHECK(c.workers == 3);
  CHECK(c.quiet == Millis(1500));
  CHECK(c.debounce == Millis(200));
  CHECK(c.lease == Millis(10000));
  CHECK_FALSE(c.fan_out);
  REQUIRE(c.watch.size() == 1);
  CHECK(c.watch[0].path == dir.path() / "runs");
  CHECK(c.watch[0].runs == std::vector<std::string>{"*/*"});
  CHECK(c.watch[0].job == "{1}");
  CHECK(c.job_limits.memory_bytes == 512ull << 20);
  CHECK(c.job_limits.cpu == Millis(120000));
  CHECK(c.log.max_bytes == 1ull << 20);
  CHECK_FALSE(c.api_apply_actions);  // off unless asked for
  CHECK(c.actions_dir == dir.path() / "perfsage-actions");
}

TEST_CASE("config mistakes are errors naming file, line and column") {
  TempDir dir;
  auto file = dir.write("bad.yaml", R"(daemon:
  store: x.db
  wokers: 2
  quiet: soon
  workers: -1
  watch:
    - path: /nonexistent-perfsage-folder
      job: "{3}"
  lease: 1s
)");
  auto load = read_daemon_config(file);
  validate(load);
  std::string text = problems(load);
  INFO(text);
  CHECK_FALSE(load.ok());
  CHECK_THAT(text, Catch::Contains(file.string() + ":3:3: error: unknown key 'wokers' in daemon"));
  CHECK_THAT(text,
             Catch::Contains(file.string() + ":4:10: error: daemon.quiet must be a duration"));
  CHECK_THAT(text, Catch::Contains(":5:12: error: daemon.workers must be a whole number from 1"));
  CHECK_THAT(text, Catch::Contains(":8:12: error: job template uses {3} but runs are only 1"));
  CHECK_THAT(text, Catch::Contains("watch folder /nonexistent-perfsage-folder is not a folder"));
  CHECK_THAT(text, Catch::Contains(":9:10: error: daemon.lease must be at least 3s"));
}

TEST_CASE("a YAML syntax error names its line") {
  TempDir dir;
  auto file = dir.write("broken.yaml", "daemon:\n  store: [x\n");
  auto load = read_daemon_config(file);
  REQUIRE_FALSE(load.ok());
  CHECK_THAT(load.problems[0].where, Catch::StartsWith(file.string() + ":"));
}

TEST_CASE("a non-loopback listen address needs a token, and a token file must be private") {
  TempDir dir;
  DaemonConfigLoad load;
  load.config.store = dir.path() / "s.db";
  load.config.listen = "0.0.0.0:7737";
  validate(load);
  CHECK_FALSE(load.ok());
  CHECK_THAT(problems(load), Catch::Contains("not a loopback address and no token"));

  auto token = dir.write("token", "s3cret\n");
  ::chmod(token.c_str(), 0644);
  load.problems.clear();
  load.config.token_file = token;
  validate(load);
  CHECK_THAT(problems(load), Catch::Contains("is readable by others: chmod 600"));

  ::chmod(token.c_str(), 0600);
  load.problems.clear();
  validate(load);
  INFO(problems(load));
  CHECK(load.ok());

  load.problems.clear();
  load.config.token_file.clear();
  load.config.listen = "localhost:7737";
  validate(load);
  CHECK(load.ok());
}

TEST_CASE("listen addresses, durations and sizes parse or say why not") {
  std::string err;
  auto a = parse_listen_address("[::1]:80", err);
  REQUIRE(a);
  CHECK(a->host == "::1");
  CHECK(a->port == 80);
  CHECK(parse_listen_address(":9000", err)->host == "0.0.0.0");
  CHECK_FALSE(parse_listen_address("127.0.0.1", err));
  CHECK_FALSE(parse_listen_address("127.0.0.1:99999", err));
  CHECK_FALSE(parse_listen_address("::1:80", err));
  CHECK(is_loopback_host("127.0.0.1"));
  CHECK(is_loopback_host("::1"));
  CHECK_FALSE(is_loopback_host("0.0.0.0"));
  CHECK_FALSE(is_loopback_host("10.1.2.3"));

  CHECK(parse_duration("250ms") == Millis(250));
  CHECK(parse_duration("2") == Millis(2000));
  CHECK(parse_duration("1.5m") == Millis(90000));
  CHECK_FALSE(parse_duration("fast"));
  CHECK_FALSE(parse_duration("3 parsecs"));
  CHECK(parse_size("4GiB") == 4ull << 30);
  CHECK(parse_size("100MB") == 100000000ull);
  CHECK(parse_size("1024") == 1024ull);
  CHECK_FALSE(parse_size("lots"));
}
