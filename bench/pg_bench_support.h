// What the shared mode's benchmarks share: a PostgreSQL server of their own, started like the
// tests' (tests/pg_cluster.h) but with the settings under test; the CPU its processes used; the
// WAL it wrote; wall and CPU clocks of this process.
#pragma once

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <latch>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "store/pg/pg_connection.h"
#include "tests/pg_cluster.h"

namespace perfsage::bench {

// How the server commits: "durable" (PostgreSQL's defaults: every commit flushed), "async"
// (synchronous_commit=off: what SQLite's WAL with synchronous=NORMAL promises, a crash may lose
// the last commits but never corrupts), "fast" (the tests' settings, fsync off).
inline std::string pg_settings(const std::string& mode) {
  if (mode == "durable") return "";
  if (mode == "async") return "-c synchronous_commit=off";
  if (mode == "fast") return test::PgServer::kTestSettings;
  std::cerr << "unknown commit mode '" << mode << "' (durable, async or fast)\n";
  std::exit(2);
}

// The server, or exit 2 with why there is none: a benchmark without it measures nothing.
inline std::unique_ptr<test::PgServer> start_postgres(const std::string& mode) {
  std::string why;
  auto server = test::PgServer::start_new(pg_settings(mode), why);
  if (!server) {
    std::cerr << "no PostgreSQL server for the benchmark: " << why << "\n";
    std::exit(2);
  }
  return server;
}

// CPU seconds (user + system) of a process so far; 0 when it is gone.
inline double process_cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  // Fields after the command: state(3) ppid(4) ... utime(14) stime(15).
  unsigned long utime = 0, stime = 0;
  const char* p = stat.c_str() + close + 2;
  for (int field = 3; field < 14 && *p; ++field) p = std::strchr(p, ' ') + 1;
  std::sscanf(p, "%lu %lu", &utime, &stime);
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

inline pid_t parent_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  auto close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  char state = 0;
  int ppid = -1;
  std::sscanf(stat.c_str() + close + 2, "%c %d", &state, &ppid);
  return ppid;
}

// CPU seconds the server's processes have used: the postmaster and its children (backends,
// WAL writer, checkpointer). A backend's share counts while its connection is open.
inline double server_cpu_seconds(const test::PgServer& server) {
  const pid_t main = server.postmaster_pid();
  double total = process_cpu_seconds(main);
  std::unique_ptr<DIR, int (*)(DIR*)> proc(::opendir("/proc"), ::closedir);
  while (dirent* e = ::readdir(proc.get())) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end || pid <= 0) continue;
    if (parent_of(static_cast<pid_t>(pid)) == main)
      total += process_cpu_seconds(static_cast<pid_t>(pid));
  }
  return total;
}

// Bytes of WAL the server has written since it started (its current insert position).
inline int64_t wal_bytes(const std::string& uri) {
  store::pg::Connection c(uri);
  auto r = c.exec("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint");
  return r.int64(0, 0);
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU seconds (user + system) of this process so far, all threads.
inline double own_cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

// This process's peak resident set in MiB.
inline double peak_rss_mib() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// The command line of a shared-mode benchmark: `--commit MODE` anywhere, the rest positional.
struct BenchArgs {
  std::string commit = "durable";
  std::vector<std::string> positional;

  BenchArgs(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a long run's lines appear as they come
    for (int i = 1; i < argc; ++i) {
      if (std::string(argv[i]) == "--commit" && i + 1 < argc) {
        commit = argv[++i];
      } else {
        positional.push_back(argv[i]);
      }
    }
  }
  // Positional argument `i` as a number, or `fallback` when absent.
  int number(size_t i, int fallback) const {
    return i < positional.size() ? std::stoi(positional[i]) : fallback;
  }
  // Positional argument `i` as a comma-separated list of numbers ("1,4,16").
  std::vector<int> numbers(size_t i, const std::string& fallback) const {
    std::stringstream list(i < positional.size() ? positional[i] : fallback);
    std::vector<int> out;
    for (std::string n; std::getline(list, n, ',');) out.push_back(std::stoi(n));
    return out;
  }
};

// A new folder under /tmp, removed with this object unless an exception is on its way out
// (what the daemons left there tells why).
class ScratchFolder {
 public:
  explicit ScratchFolder(const std::string& prefix) {
    std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a folder in /tmp");
    path_ = tmpl;
  }
  ~ScratchFolder() {
    if (std::uncaught_exceptions() > 0) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// What `threads` threads cost, running from one start to the last one's end.
struct ConcurrentCost {
  double wall_s = 0, client_cpu_s = 0, server_cpu_s = 0;
  int64_t wal = 0;  // bytes written to the WAL meanwhile
};

// Runs work(k) on threads k = 0..threads-1, started together. Each thread's connections must be
// open before (made by the caller): they stay open until the server's CPU has been read. The
// first exception a thread threw is thrown again here.
inline ConcurrentCost run_concurrently(const test::PgServer& server, const std::string& uri,
                                       int threads, const std::function<void(int)>& work) {
  std::latch start(threads + 1), finished(threads), release(1);
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
  for (int k = 0; k < threads; ++k) {
    pool.emplace_back([&, k] {
      start.arrive_and_wait();
      try {
        work(k);
      } catch (...) {
        errors[static_cast<size_t>(k)] = std::current_exception();
      }
      finished.count_down();
      release.wait();
    });
  }
  ConcurrentCost cost;
  const int64_t wal0 = wal_bytes(uri);
  const double server0 = server_cpu_seconds(server), client0 = own_cpu_seconds();
  auto t0 = std::chrono::steady_clock::now();
  start.arrive_and_wait();
  finished.wait();
  cost.wall_s = seconds_since(t0);
  cost.client_cpu_s = own_cpu_seconds() - client0;
  cost.server_cpu_s = server_cpu_seconds(server) - server0;
  cost.wal = wal_bytes(uri) - wal0;
  release.count_down();
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  return cost;
}

// A benchmark's main: `body` with the parsed command line; an exception it lets through is
// reported and exits 1, after the destructors (the server, the daemons) have run.
inline int bench_main(int argc, char** argv, int (*body)(const BenchArgs&)) {
  try {
    return body(BenchArgs(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << argv[0] << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace perfsage::bench
