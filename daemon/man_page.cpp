#include "daemon/man_page.h"

#include <sstream>
#include <utility>
#include <vector>

#include "app/man_page.h"
#include "daemon/options.h"

namespace perfsage::daemon {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

// Every key daemon/config.cpp reads (a test holds the two together), as docs/daemon.md says.
const Entries& config_keys() {
  static const Entries keys = {
      {"daemon.store", "the SQLite store of runs, findings and history (required; --store)"},
      {"daemon.queue_store", "the job queue's own SQLite file (default: STORE.queue)"},
      {"daemon.postgres",
       "shared mode: a PostgreSQL URI whose job queue several daemons share (--postgres)"},
      {"daemon.fan_out",
       "shared mode: a run folder of several ranks becomes a job per rank and a reduce (true)"},
      {"daemon.instance", "this daemon's name as a queue owner (default: the host name)"},
      {"daemon.listen",
       "HOST:PORT of the API (default 127.0.0.1:7737); any address but loopback needs a token"},
      {"daemon.token", "the bearer token every request but the probes must carry"},
      {"daemon.token_file",
       "a file (mode 0600) whose first line is the bearer token; not with daemon.token"},
      {"daemon.workers", "worker processes analysing at once, 1 to 256 (default 2; --workers)"},
      {"daemon.watch", "the watched folders, each a map (--watch replaces the list):"},
      {"daemon.watch[].path", "the folder (must exist)"},
      {"daemon.watch[].runs",
       "relative globs, one per level: what matches is one run (default \"*\")"},
      {"daemon.watch[].job",
       "the job's name from the run's path: {1}..{n} components, {name} (the default), {root}"},
      {"daemon.watch[].ignore", "globs of files that are never part of a run"},
      {"daemon.debounce", "a run's files must be quiet this long before it is analysed (2s)"},
      {"daemon.quiet", "the wait for runs whose formats have no end marker, such as CSV (60s)"},
      {"daemon.pack_reload_debounce", "pack folder changes are gathered this long (1s)"},
      {"daemon.shutdown_grace", "running jobs' time to finish on SIGTERM (30s)"},
      {"daemon.lease",
       "a running job's lease, renewed every third of it; a job whose daemon stopped renewing "
       "is queued again when it runs out (60s, at least 3s)"},
      {"daemon.job_limits",
       "per worker: memory (RLIMIT_AS, 4GiB), cpu (RLIMIT_CPU, 1h), time (wall clock, 1h)"},
      {"daemon.job_limits.memory", "at least 64MiB"},
      {"daemon.job_limits.cpu", "CPU time of one job"},
      {"daemon.job_limits.time", "wall-clock time of one job; the daemon kills it then"},
      {"daemon.max_crashes", "a job whose worker crashed this often is quarantined (2)"},
      {"daemon.max_attempts",
       "a job claimed this often without an end (the daemon died) is quarantined (5)"},
      {"daemon.lenient", "skip malformed records instead of failing the job (false)"},
      {"daemon.auto_apply_actions",
       "apply each analysed run's exact actions under actions_dir (false)"},
      {"daemon.api_apply_actions", "allow POST .../apply and .../rollback (false)"},
      {"daemon.actions_dir",
       "where applied actions write (default: perfsage-actions beside "
       "the store)"},
      {"daemon.submit_roots",
       "POST /api/v1/submit reads only below these (default: the watch folders)"},
      {"daemon.log", "the log: file, max_size, max_files, level:"},
      {"daemon.log.file", "a size-rotated log file (default: stderr, i.e. the journal)"},
      {"daemon.log.max_size", "rotate at this size (10MiB)"},
      {"daemon.log.max_files", "rotated files kept (5)"},
      {"daemon.log.level", "trace, debug, info, warn or error (info; --log-level)"},
      {"daemon.http", "the HTTP front's limits:"},
      {"daemon.http.header_timeout", "a request's line and headers must arrive within this (10s)"},
      {"daemon.http.body_timeout", "its body within this after them (30s)"},
      {"daemon.http.idle_timeout", "a kept-alive connection waits this long (2s)"},
      {"daemon.http.send_timeout", "a client must take a response within this (60s)"},
      {"daemon.http.max_connections", "open connections in all (512)"},
      {"daemon.http.max_connections_per_client", "from one address (256)"},
      {"daemon.http.threads", "threads serving requests (16; two more answer the probes)"},
      {"kb, limits",
       "the packs and their budgets, as for perfsage(1): kb.paths (watched for changes), "
       "kb.packs, kb.params, limits.pack_time, limits.max_input, ..."},
  };
  return keys;
}

}  // namespace

std::string perfsaged_man_page(const std::string& version) {
  std::ostringstream help, ignored;
  parse_options({"--help"}, help, ignored);
  auto parsed = app::parse_help(help.str());
  app::ManPage page;
  page.name = "perfsaged";
  page.section = 8;
  page.version = "perfsage " + version;
  page.summary = "analyses training runs' profiling output as it appears and serves the results";
  page.synopsis = {"perfsaged [--config FILE] [options]", "perfsaged --config FILE --check-config"};
  page.sections.push_back(
      {"DESCRIPTION",
       app::roff_paragraphs(
           {"perfsaged watches folders where training jobs write their profiling output, "
            "analyses each run once its output is complete (no file open for writing, quiet for "
            "daemon.debounce, and every file sealed by its format or quiet for daemon.quiet), "
            "keeps the results with each job's history in a perfsage store, and serves them: a "
            "JSON API, a web page at / and Prometheus metrics.",
            "Each job is analysed by a worker process forked from a forkserver that holds the "
            "loaded packs, under the memory, CPU and time limits of daemon.job_limits. A job "
            "whose worker crashes is retried, and quarantined after daemon.max_crashes. A pack "
            "that does not load at start is left out and the service reports itself degraded "
            "(/readyz, GET /api/v1/packs, perfsage_packs_broken) instead of staying down."})});
  page.sections.push_back({"OPTIONS", app::roff_options(parsed.options)});
  page.sections.push_back(
      {"CONFIGURATION",
       app::roff_paragraphs(
           {"One YAML file (--config): the daemon: section, read at start, and the kb: and "
            "limits: sections shared with perfsage(1), read again on every reload. Every "
            "problem is reported with file:line:column. Durations are 500ms, 30s, 5m, 1h or "
            "seconds; sizes 512MiB, 4GiB, 100MB or bytes; relative paths are taken from the "
            "config file's folder. An example is installed as "
            "PREFIX/share/doc/perfsage/examples/perfsaged.yaml."}) +
           app::roff_entries(config_keys())});
  page.sections.push_back(
      {"SIGNALS", app::roff_entries(
                      {{"SIGHUP",
                        "reload the packs (as systemctl reload perfsaged and POST "
                        "/api/v1/packs/reload): the kb: and limits: sections are read again and "
                        "the pack set loaded whole; if it fails, the previous packs keep serving "
                        "and the log, /readyz and GET /api/v1/packs say so"},
                       {"SIGTERM, SIGINT",
                        "stop: no new jobs; running ones get daemon.shutdown_grace to finish, "
                        "then are killed and queued again; the write-ahead logs are folded into "
                        "the store and the queue; exit 0. A second signal skips the wait."}})});
  page.sections.push_back(
      {"HTTP API",
       app::roff_paragraphs(
           {"JSON bodies are the messages of proto/perfsage/v1/api.proto. GET /api/v1/status, "
            "/api/v1/runs (?job, status, since, until, limit, page_token), /api/v1/runs/ID, "
            "/api/v1/runs/ID/report.html, /api/v1/jobs, /api/v1/jobs/JOB/history, "
            "/api/v1/compare?a=&b=, /api/v1/queue, /api/v1/packs; POST /api/v1/submit, "
            "/api/v1/packs/reload, and the actions routes; GET /healthz, /readyz and /metrics "
            "(Prometheus). With a token every request but the probes and the page's static "
            "files needs Authorization: Bearer TOKEN. Every route, status code and metric is "
            "in PREFIX/share/doc/perfsage/docs/daemon.md. perfsage daemon status, runs, show "
            "and submit are its command-line client."})});
  page.sections.push_back(
      {"ENVIRONMENT",
       app::roff_entries(
           {{"PERFSAGE_KB_PATH",
             "a knowledge_bases folder used instead of the one installed beside the binary"},
            {"XDG_DATA_HOME, HOME",
             "the user pack folder $XDG_DATA_HOME/perfsage/packs (default "
             "~/.local/share/perfsage/packs)"},
            {"NOTIFY_SOCKET",
             "set by systemd for Type=notify: READY, RELOADING, STOPPING and STATUS are sent "
             "there"}})});
  page.sections.push_back(
      {"FILES", app::roff_entries(
                    {{"/etc/perfsage/perfsaged.yaml", "the config the systemd unit starts with"},
                     {"PREFIX/lib/systemd/system/perfsaged.service",
                      "the unit: Type=notify, ExecReload sends SIGHUP, hardened, the store under "
                      "/var/lib/perfsage"},
                     {"PREFIX/share/doc/perfsage/examples/perfsaged.yaml", "an example config"},
                     {"STORE, STORE.queue",
                      "the store (daemon.store) and the job queue (daemon.queue_store), SQLite"},
                     {"/etc/perfsage/packs/",
                      "system packs, searched after the built-in and community "
                      "ones"},
                     {"PREFIX/share/perfsage/knowledge_bases/",
                      "the built-in and community packs, hardware specs and fusion patterns"}})});
  page.sections.push_back(
      {"EXIT STATUS",
       app::roff_entries(
           {{"0", "stopped on request; --check-config: the config and its packs load"},
            {"1",
             "the daemon could not start: the store, the queue, the listener or "
             "the forkserver failed (the log says why)"},
            {"2",
             "bad usage or a config mistake; --check-config: a selected pack "
             "does not load"},
            {"70", "an internal error (a defect in perfsaged)"}})});
  page.sections.push_back(
      {"SEE ALSO", ".BR perfsage (1),\n.BR perfsage\\-daemon (1),\n.BR systemctl (1)\n"});
  return app::render_man_page(page);
}

}  // namespace perfsage::daemon
