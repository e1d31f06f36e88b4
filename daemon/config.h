// perfsaged's own configuration: the `daemon:` section of the YAML config file (the `kb:` and
// `limits:` sections are the analysis service's, shared with the CLI), plus command-line
// overrides. Every problem names file:line:column.
//
//   daemon:
//     store: /var/lib/perfsage/perf.db
//     listen: 127.0.0.1:7737          # other addresses need token or token_file
//     workers: 2
//     watch:
//       - path: /data/runs
//         runs: "*/*"                 # run folders (or files) under path, one glob per level
//         job: "{1}"                  # the job a run belongs to: {1}..{n}, {name}, {root}
//     quiet: 60s                      # a run without end markers is complete after this
//     lease: 60s                      # a running job's lease (shared mode: how soon a dead
//                                     # daemon's jobs go to another)
//     job_limits: {memory: 4GiB, cpu: 30m, time: 1h}
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace perfsage::daemon {

using Millis = std::chrono::milliseconds;

struct WatchRoot {
  std::filesystem::path path;
  // Globs over the path relative to `path`, '/'-separated, one component per level: a run is a
  // folder or file whose relative path matches one of them; files below it belong to it.
  std::vector<std::string> runs = {"*"};
  // The job a run belongs to: {1}..{n} are the components of the run's relative path, {name}
  // the run's own name without trace extensions, {root} the watch folder's name.
  std::string job = "{name}";
  std::vector<std::string> ignore = {".*", "*.tmp", "*.part", "*.partial", "*.swp", "*~"};
};

struct JobLimits {
  uint64_t memory_bytes = 4ull << 30;   // address space of a worker (RLIMIT_AS)
  Millis cpu = std::chrono::hours(1);   // CPU time of a worker (RLIMIT_CPU)
  Millis time = std::chrono::hours(1);  // wall time before the worker is killed
};

// The HTTP front's limits (daemon/connection_gate.h), `daemon.http` in the config.
struct HttpLimits {
  Millis header_timeout = std::chrono::seconds(10);  // a request's line and headers
  Millis body_timeout = std::chrono::seconds(30);    // its body, after the headers
  Millis idle_timeout = std::chrono::seconds(2);     // a kept-alive connection, between requests
  Millis send_timeout = std::chrono::seconds(60);    // a response, to be taken by the client
  int max_connections = 512;
  int max_connections_per_client = 256;  // from one address
  int threads = 16;                      // serving requests; 2 more answer /healthz and /readyz
};

struct LogConfig {
  std::filesystem::path file;  // empty: stderr (the journal under systemd)
  uint64_t max_bytes = 10ull << 20;
  int max_files = 5;
  std::string level = "info";
};

struct DaemonConfig {
  std::filesystem::path config_file;  // empty: defaults and flags only
  std::filesystem::path store;
  // The job queue's own SQLite file (default: the store's path + ".queue"). It has the store's
  // schema, but only its jobs table is used: an ingest holds the store's write lock for the
  // whole run, and claiming or finishing jobs must not wait behind it.
  std::filesystem::path queue_store;
  std::string instance;  // this daemon's name as a queue owner (default: the host name; in
                         // shared mode the host name and the store's path)
  // Shared mode (docs/scale-out.md): a libpq connection URI of the PostgreSQL database whose job
  // queue several daemons share; empty: the SQLite queue file. Its password is never logged.
  std::string postgres;
  // Shared mode: a run folder of several ranks is analysed as a rank job per rank and a reduce
  // (docs/scale-out.md, "Cluster runs"); false: as one job, as one daemon does.
  bool fan_out = true;
  std::string listen = "127.0.0.1:7737";
  std::string token;
  std::filesystem::path token_file;
  int workers = 2;
  std::vector<WatchRoot> watch;
  Millis debounce = Millis(2000);  // a burst of file events settles for this long first
  Millis quiet = std::chrono::seconds(60);
  Millis pack_reload_debounce = Millis(1000);
  Millis shutdown_grace = std::chrono::seconds(30);
  // A running job's lease: renewed every third of it; a job whose holder stopped renewing (dead,
  // paused, cut off) is queued again for any daemon once it runs out.
  Millis lease = std::chrono::seconds(60);
  JobLimits job_limits;
  bool lenient = false;
  bool auto_apply_actions = false;  // safe actions applied without asking: off by default
  // POST /api/v1/actions/{id}/apply and .../rollback write files with the daemon's rights: off
  // unless set. They write under actions_dir (default: perfsage-actions beside the store), never
  // into a watched folder.
  bool api_apply_actions = false;
  std::filesystem::path actions_dir;
  // POST /api/v1/submit reads only paths under these folders (symbolic links resolved); others
  // are refused with 403. Not set: the watch folders (none: nothing can be submitted).
  std::vector<std::filesystem::path> submit_roots;
  bool submit_roots_set = false;
  int max_crashes = 2;
  int max_attempts = 5;
  std::filesystem::path port_file;  // written with the bound port once listening (tests)
  LogConfig log;
  HttpLimits http;
};

struct ConfigProblem {
  std::string where;  // file:line:column, or the flag
  std::string text;
  bool error = true;
  std::string str() const;
};

struct DaemonConfigLoad {
  DaemonConfig config;
  std::vector<ConfigProblem> problems;
  bool ok() const;
};

// Reads the `daemon:` section of `file` (absent section: defaults). Relative paths are taken
// from the file's folder.
DaemonConfigLoad read_daemon_config(const std::filesystem::path& file);

// Checks what the file and the flags made together (a store, a listen address, a token where
// one is required, watch folders that exist).
void validate(DaemonConfigLoad& load);

// The one unit syntax of every section (app/config_units.h): "250ms", "2s", "1.5m", "1h", or a
// number of seconds; "4GiB", "512MiB", "100MB", "64k", or a number of bytes.
std::optional<Millis> parse_duration(const std::string& text);
std::optional<uint64_t> parse_size(const std::string& text);

}  // namespace perfsage::daemon
