#include "daemon/daemon.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <thread>

#include "app/cluster_jobs.h"
#include "app/front_end_names.h"
#include "app/input_scope.h"
#include "app/job_identity.h"
#include "app/store_health.h"
#include "daemon/systemd_notify.h"

namespace perfsage::daemon {
namespace fs = std::filesystem;
using std::chrono::steady_clock;

namespace {

std::string host_name() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "perfsaged";
  return buf;
}

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What a run looks like now: the fingerprint the store gives the same input set (app's one
// identity of inputs, as the CLI computes it).
std::optional<std::string> signature_of(const fs::path& run) {
  try {
    return app::input_fingerprint({run});
  } catch (const std::exception&) {
    return std::nullopt;  // gone meanwhile
  }
}

// The queue's file has the store's schema, but its runs table stays empty: the run ids its jobs
// name are the store's, so the foreign key to runs cannot hold there.
std::unique_ptr<app::Database> open_queue_store(const fs::path& path) {
  auto db = std::make_unique<app::Database>(path.string());
  db->exec("PRAGMA foreign_keys=OFF");
  return db;
}

// Atomically, or through a FIFO or device (--port-file /dev/stdout), never renamed over one.
void write_port_file(const fs::path& file, int port) {
  app::write_user_file(file, std::to_string(port) + "\n");
}

}  // namespace

void block_daemon_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
}

Daemon::Daemon(DaemonConfig config, std::string token, fs::path executable, std::string version)
    : config_(std::move(config)),
      token_(std::move(token)),
      version_(std::move(version)),
      // Several daemons on one host share a queue in shared mode: each store is one owner.
      owner_(!config_.instance.empty()  ? config_.instance
             : config_.postgres.empty() ? host_name()
                                        : host_name() + ":" + config_.store.string()),
      executable_(std::move(executable)),
      pool_(executable_, config_.config_file),
      layout_(config_.watch,
              {config_.store, config_.queue_store, config_.actions_dir, config_.log.file}),
      tracker_(layout_, config_.debounce, config_.quiet),
      shared_(!config_.postgres.empty()) {}

Daemon::~Daemon() {
  stop_waiting_ = true;
  if (notification_waiter_.joinable()) notification_waiter_.join();
  if (http_) http_->stop();
  pool_.stop();
  if (sigfd_ >= 0) ::close(sigfd_);
  if (wakefd_ >= 0) ::close(wakefd_);
}

std::string Daemon::iso_now() const {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void Daemon::wake() {
  uint64_t one = 1;
  ssize_t n = ::write(wakefd_, &one, sizeof one);
  (void)n;
}

std::string Daemon::job_for(const fs::path& path) const {
  if (auto loc = layout_.locate(path)) return loc->job;
  WatchRoot plain;
  plain.job = "{name}";
  return job_name(plain, {path.filename().string()});
}

SubmitOutcome Daemon::submit(const std::string& path_text, const std::string& job, bool lenient) {
  SubmitOutcome out;
  if (stopping_) {
    out.error = "the daemon is stopping";
    return out;
  }
  fs::path path(path_text);
  if (path_text.empty() || !path.is_absolute()) {
    out.error = "path must be absolute (the daemon's working folder means nothing to a client)";
    return out;
  }
  // The same normal path the CLI records, so that a watched run submitted over the API is found
  // in its watch root (its job named by the watch rule) and fingerprinted as the CLI does.
  path = app::normal_input(path);
  // Read with the daemon's rights on a client's behalf: only under the configured folders.
  if (auto why = app::outside_roots(path, config_.submit_roots); !why.empty()) {
    out.error = why;
    out.forbidden = true;
    spdlog::warn("submit refused: {}", why);
    return out;
  }
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    out.error = path_text + ": no such file or folder (as seen by the daemon)";
    return out;
  }
  auto sig = signature_of(path);
  if (!sig) {
    out.error = path_text + ": cannot be read";
    return out;
  }
  std::lock_guard lock(submit_mu_);
  app::JobSpec spec{job.empty() ? job_for(path) : job, {path.string()}, "api", *sig, lenient};
  app::EnqueueResult r;
  if (shared_) {
    r = queue_->enqueue(spec, app::Dedup::pending, iso_now());
  } else {
    if (!submit_db_) submit_db_ = open_queue_store(config_.queue_store);
    app::SqliteJobQueue queue(*submit_db_, {config_.max_crashes, config_.max_attempts});
    r = queue.enqueue(spec, app::Dedup::pending, iso_now());
  }
  out.ok = true;
  out.job_id = r.id;
  out.added = r.added;
  spdlog::info("submitted {}: {} job {}", path.string(),
               r.added ? "queued as" : "already pending as", r.id);
  wake();
  return out;
}

void Daemon::watch_pack_folders(const std::vector<std::string>& paths) {
  pack_paths_ = paths;
  packs_watch_ = std::make_unique<InotifyWatcher>();
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) continue;
    try {
      packs_watch_->add_tree(p, nullptr);
    } catch (const std::exception& e) {
      spdlog::warn("pack folder changes will not trigger a reload: {}", e.what());
    }
  }
}

void Daemon::publish_packs() {
  if (!catalog_) return;
  auto s = state_.get();
  try {
    catalog_->publish_packs(s.generation, s.packs);
  } catch (const app::StoreError& e) {
    spdlog::warn("the catalog did not take this daemon's packs ({}); sent again at the next reload",
                 e.what());
  }
}

void Daemon::sync_catalog() {
  // On the notification thread, after each publication (NOTIFY) and every half second: the
  // imports (tens of ms a run) never hold up the main loop's jobs. Thread-safe: one import at a
  // time (FleetCatalog), the state and metrics behind their mutexes.
  std::string error;
  try {
    std::vector<std::string> problems;
    if (int n = catalog_->sync(&problems)) metrics_.add("perfsage_catalog_imported_total", n);
    if (!problems.empty())
      metrics_.add("perfsage_catalog_import_failures_total", static_cast<double>(problems.size()));
    for (const auto& p : problems) spdlog::warn("catalog: {}", p);
  } catch (const app::StoreError& e) {
    error = e.what();
  }
  auto before = state_.get().database_error;
  if (error != before) {
    if (!error.empty())
      spdlog::error("shared database unreachable: {}; serving what the replica holds", error);
    else
      spdlog::info("shared database reachable again");
    state_.update([&](StateSnapshot& s) { s.database_error = error; });
  }
}

bool Daemon::reload(const std::string& trigger) {
  systemd::reloading("reloading knowledge (" + trigger + ")");
  uint64_t gen = generation_ + 1;
  ipc::FromForkserver reply;
  std::vector<ipc::FromForkserver> others;
  bool answered =
      pool_.load(gen) && pool_.wait_for(ipc::FromForkserver::kLoaded, 300000, reply, others);
  auto now = steady_clock::now();
  for (const auto& m : others) runner_->on_message(m, now);
  ReloadInfo info;
  info.time = iso_now();
  info.trigger = trigger;
  if (!answered) {
    info.error = "the forkserver did not answer the load";
  } else {
    const auto& l = reply.loaded();
    info.ok = l.ok();
    if (!l.ok()) info.error = l.error();  // when ok, error names the packs left out
    info.messages.assign(l.messages().begin(), l.messages().end());
    if (l.ok()) {
      generation_ = l.generation();
      knowledge_loaded_ = true;
    }
  }
  info.generation = generation_;
  metrics_.add("perfsage_pack_reloads_total", 1, {{"result", info.ok ? "ok" : "failed"}});
  if (!info.ok) metrics_.add("perfsage_pack_load_failures_total", 1);
  state_.update([&](StateSnapshot& s) {
    if (info.ok) {
      s.packs.assign(reply.loaded().packs().begin(), reply.loaded().packs().end());
      s.generation = generation_;
      s.knowledge_loaded = true;
    }
    s.last_reload = info;
  });
  size_t broken = 0;
  if (info.ok) {
    for (const auto& p : reply.loaded().packs()) {
      if (p.status() == "ok") continue;
      ++broken;
      spdlog::warn("pack {} is broken and does not serve: {}", p.name(), p.error());
    }
    spdlog::info("knowledge generation {} serving ({} packs{}; {})", generation_,
                 reply.loaded().packs_size() - static_cast<int>(broken),
                 broken ? fmt::format(", {} broken left out", broken) : "", trigger);
    watch_pack_folders({reply.loaded().pack_paths().begin(), reply.loaded().pack_paths().end()});
    publish_packs();
  } else if (knowledge_loaded_) {
    spdlog::error("knowledge reload ({}) failed; generation {} keeps serving: {}", trigger,
                  generation_, info.error);
  } else {
    spdlog::error("cannot load the knowledge ({}): {}", trigger, info.error);
  }
  systemd::ready(fmt::format("serving knowledge generation {}{}{}", generation_,
                             broken ? fmt::format(" ({} pack(s) broken)", broken) : "",
                             info.ok ? "" : " (last reload failed)"));
  return info.ok;
}

void Daemon::scan_roots(SteadyTime now) {
  std::map<fs::path, fs::path> runs;  // run → one file in it
  size_t roots = 0;
  for (const auto& root : config_.watch) {
    std::vector<fs::path> found;
    try {
      runs_watch_->add_tree(root.path, &found);
    } catch (const std::exception& e) {
      spdlog::error("cannot watch {}: {}", root.path.string(), e.what());
      continue;
    }
    ++roots;
    for (const auto& f : found) {
      if (auto loc = layout_.locate(f)) runs.emplace(loc->path, f);
    }
  }
  for (const auto& w : runs_watch_->take_warnings()) spdlog::warn("{}", w);
  size_t known = 0;
  for (const auto& [run, file] : runs) {
    auto sig = signature_of(run);
    if (sig && queue_->find({run.string()}, *sig)) {
      ++known;  // analysed (or queued) as it is now
      continue;
    }
    tracker_.on_event(file, FileEventKind::changed, now);
  }
  watch_roots_ = roots;
  // The configured folders, as the metric perfsage_watched_folders counts them; inotify also
  // watches every folder below them (perfsage_inotify_watches).
  spdlog::info("watching {} ({} under inotify watch): {} found, {} already known",
               app::count_text(static_cast<int64_t>(roots), "folder"),
               app::count_text(static_cast<int64_t>(runs_watch_->watched_folders()), "directory",
                               "directories"),
               app::count_text(static_cast<int64_t>(runs.size()), "run"), known);
}

void Daemon::on_run_events(SteadyTime now) {
  bool overflow = false;
  for (const auto& ev : runs_watch_->read_events()) {
    if (ev.kind == WatchEvent::overflow) {
      overflow = true;
      continue;
    }
    auto kind = ev.kind == WatchEvent::written  ? FileEventKind::written
                : ev.kind == WatchEvent::closed ? FileEventKind::closed
                                                : FileEventKind::changed;
    tracker_.on_event(ev.path, kind, now);
  }
  for (const auto& w : runs_watch_->take_warnings()) spdlog::warn("{}", w);
  if (overflow) {
    spdlog::warn("inotify dropped events; rescanning the watch folders");
    scan_roots(now);
  }
}

void Daemon::queue_ready_runs(SteadyTime now) {
  for (const auto& ready : tracker_.take_ready(now)) {
    auto sig = signature_of(ready.run.path);
    if (!sig) continue;
    app::JobSpec spec{ready.run.job, {ready.run.path.string()}, "watch", *sig, config_.lenient};
    auto r = queue_->enqueue(spec, app::Dedup::same_signature, iso_now());
    if (r.added) {
      spdlog::info("run {} complete ({}): queued as job {} of {}", ready.run.path.string(),
                   ready.why, r.id, ready.run.job);
    } else {
      spdlog::debug("run {} unchanged since job {}", ready.run.path.string(), r.id);
    }
  }
}

void Daemon::restart_forkserver(SteadyTime now) {
  forkserver_restart_at_.reset();
  try {
    pool_.start();
  } catch (const std::exception& e) {
    spdlog::error("cannot restart the forkserver: {}; retrying in 5 s", e.what());
    forkserver_restart_at_ = now + std::chrono::seconds(5);
    return;
  }
  // A fresh forkserver reads the packs from disk: that is a load like any other and must pass.
  knowledge_loaded_ = false;
  state_.update([](StateSnapshot& s) { s.knowledge_loaded = false; });
  reload("forkserver restart");
}

void Daemon::on_forkserver(SteadyTime now) {
  bool lost = false;
  std::string status;
  for (const auto& m : pool_.read(lost, status)) runner_->on_message(m, now);
  if (!lost) return;
  metrics_.add("perfsage_worker_restarts_total", 1, {{"reason", "forkserver"}});
  runner_->on_forkserver_lost(status);
  if (stopping_) return;
  spdlog::error("the forkserver died ({}); starting a new one", status);
  forkserver_restart_at_ = now + std::chrono::seconds(1);
}

void Daemon::publish(SteadyTime now) {
  auto pending = tracker_.pending();
  auto running = runner_->snapshot(now);
  size_t inotify_watches = runs_watch_ ? runs_watch_->watched_folders() : 0;
  state_.update([&](StateSnapshot& s) {
    s.pending = std::move(pending);
    s.running = std::move(running);
    s.watched_folders = watch_roots_;
    s.inotify_watches = inotify_watches;
    s.stopping = stopping_;
  });
}

int Daemon::wait_ms(SteadyTime now) const {
  SteadyTime next = now + std::chrono::seconds(1);
  for (const auto& t : {tracker_.next_check(), runner_->next_deadline(), pack_reload_at_,
                        forkserver_restart_at_, grace_end_}) {
    if (t && *t < next) next = *t;
  }
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count();
  return static_cast<int>(std::clamp<int64_t>(ms + 1, 0, 1000));
}

bool Daemon::start_up() {
  started_ = steady_clock::now();
  // The store is created (and migrated) here, before any worker writes to it. A damaged one
  // takes no new run (app::store_damage): say so now, and be not ready.
  {
    app::Database store(config_.store.string());
    if (auto damage = app::store_damage(store); !damage.empty()) {
      store_damaged_ = true;
      spdlog::error("{}; jobs fail until it is replaced", damage);
    }
  }
  const app::QueuePolicy policy{config_.max_crashes, config_.max_attempts};
  if (shared_) {
    // Shared mode: the queue lives in PostgreSQL; an enqueue by any daemon wakes this one.
    // Run ids are the catalog's: job_of_run answers for every daemon's runs.
    queue_ = app::open_shared_queue(config_.postgres, policy, "");
    catalog_ = std::make_unique<app::FleetCatalog>(config_.postgres, owner_,
                                                   app::catalog_replica_path(config_.store));
    spdlog::info(
        "shared mode: the job queue and the catalog are shared in PostgreSQL as owner "
        "{}; the API reads the catalog's replica {}",
        owner_, catalog_->replica_path().string());
    notifications_ = std::make_unique<app::SharedQueueNotifications>(config_.postgres);
    notification_waiter_ = std::thread([this] {
      while (!stop_waiting_) {
        if (notifications_->wait(std::chrono::milliseconds(500))) wake();
        sync_catalog();
      }
    });
  } else {
    db_ = open_queue_store(config_.queue_store);
    queue_ = std::make_unique<app::SqliteJobQueue>(*db_, policy);
  }
  if (shared_) {
    // The jobs this daemon held when it stopped go back to the queue for any daemon: what their
    // workers stored here is nobody's result.
    std::vector<std::vector<std::string>> held;
    for (const auto& j : queue_->list({app::JobState::running, "", 0, 100000}))
      if (j.owner == owner_) held.push_back(j.spec.inputs);
    if (!held.empty()) {
      app::Database store(config_.store.string());
      auto published = [this](int64_t run) { return catalog_->published(run).has_value(); };
      if (int n = app::drop_unfinished_runs(store, published, held))
        spdlog::info("{} unfinished run(s) of interrupted jobs removed from the store", n);
    }
    // What rank jobs of the last process left (their jobs are queued again).
    app::remove_rank_folders(app::rank_spool(config_.store), 0);
  }
  if (int n = queue_->recover(owner_, iso_now())) {
    spdlog::info("{} job(s) interrupted by the last stop are queued again", n);
  }
  // The API reads the runs of this store, or in shared mode those of the whole fleet.
  state_.update([&](StateSnapshot& s) { s.shared = shared_; });
  if (catalog_) sync_catalog();
  readers_ = std::make_unique<ReaderPool>(catalog_ ? catalog_->replica_path().string()
                                                   : config_.store.string());
  if (!shared_) queue_readers_ = std::make_unique<ReaderPool>(config_.queue_store.string());
  runner_ = std::make_unique<JobRunner>(*queue_, pool_, metrics_, config_,
                                        Clocks{[this] { return iso_now(); }, wall_ms}, owner_);
  if (catalog_) {
    runner_->set_completion([this](const app::QueuedJob& job, const ipc::JobResult& result) {
      if (job.kind == app::JobKind::rank) {
        // A rank's run waits in the catalog for the cluster's reduce; it is not the fleet's.
        const fs::path folder = result.rank_folder();
        bool kept = catalog_->keep_rank_extract(job.id, owner_, folder / "extract", iso_now());
        std::error_code ec;
        fs::remove_all(folder, ec);
        if (kept)
          spdlog::info("job {} ({}): rank {} kept for the reduce, job {}", job.id, job.spec.job,
                       job.rank, job.parent);
        return kept;
      }
      const int64_t run_id = result.run_id();
      auto id = catalog_->publish_job_run(job.id, owner_, config_.store, run_id, iso_now());
      if (id) {
        metrics_.add("perfsage_catalog_published_total", 1);
        spdlog::info("job {} ({}): run {} published to the catalog as run {}", job.id, job.spec.job,
                     run_id, *id);
      }
      return id.has_value();
    });
  }

  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&set, s);
  sigfd_ = ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  wakefd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

  pool_.start();
  if (!reload("start")) return false;

  runs_watch_ =
      std::make_unique<InotifyWatcher>([this](const fs::path& p) { return layout_.ignored(p); });
  scan_roots(steady_clock::now());

  ApiContext ctx;
  ctx.config = &config_;
  ctx.state = &state_;
  ctx.metrics = &metrics_;
  ctx.readers = readers_.get();
  ctx.queue_readers = queue_readers_.get();
  if (shared_) ctx.shared_queue = queue_.get();
  ctx.catalog = catalog_.get();
  ctx.instance = owner_;
  ctx.submit = [this](const std::string& p, const std::string& j, bool l) {
    return submit(p, j, l);
  };
  ctx.request_reload = [this] {
    reload_requested_ = true;
    wake();
  };
  ctx.store_writable = [this] {
    return store_ok_.load() && !store_damaged_ && ::access(config_.store.c_str(), W_OK) == 0;
  };
  ctx.version = version_;
  ctx.started = iso_now();
  ctx.started_at = started_;
  http_ = std::make_unique<HttpServer>(ctx, token_);
  std::string err;
  auto addr = parse_listen_address(config_.listen, err);
  int port = http_->bind(*addr);
  if (!config_.port_file.empty()) write_port_file(config_.port_file, port);
  http_->start();
  spdlog::info("perfsaged {} listening on http://{}:{}{} (store {}, {} worker(s), owner {})",
               version_,
               addr->host.find(':') != std::string::npos ? "[" + addr->host + "]" : addr->host,
               port, token_.empty() ? "" : ", bearer token required", config_.store.string(),
               config_.workers, owner_);
  return true;
}

int Daemon::run() {
  try {
    if (!start_up()) return 1;
  } catch (const std::exception& e) {
    spdlog::error("cannot start: {}", e.what());
    return 1;
  }
  systemd::ready(fmt::format("serving knowledge generation {}; watching {}", generation_,
                             app::count_text(static_cast<int64_t>(watch_roots_), "folder")));
  bool done = false;
  while (!done) {
    auto now = steady_clock::now();
    try {
      if (!stopping_ && knowledge_loaded_) runner_->fill(now);
      publish(now);
      std::vector<pollfd> fds = {{sigfd_, POLLIN, 0},
                                 {wakefd_, POLLIN, 0},
                                 {runs_watch_->fd(), POLLIN, 0},
                                 {packs_watch_ ? packs_watch_->fd() : -1, POLLIN, 0},
                                 {pool_.alive() ? pool_.fd() : -1, POLLIN, 0}};
      ::poll(fds.data(), fds.size(), wait_ms(now));
      now = steady_clock::now();
      if (fds[0].revents) {
        signalfd_siginfo si;
        while (::read(sigfd_, &si, sizeof si) == sizeof si) {
          if (si.ssi_signo == SIGHUP) {
            reload_requested_ = true;
          } else if (!stopping_) {
            stopping_ = true;
            grace_end_ = now + config_.shutdown_grace;
            runner_->stop_accepting();
            spdlog::info("{}: stopping; {} running job(s) get {} s to finish",
                         strsignal(si.ssi_signo), runner_->running(),
                         config_.shutdown_grace.count() / 1000);
            systemd::stopping("stopping: waiting for running jobs");
          } else {
            grace_end_ = now;  // a second signal: do not wait
          }
        }
      }
      if (fds[1].revents) {
        uint64_t n;
        ssize_t r = ::read(wakefd_, &n, sizeof n);
        (void)r;
      }
      if (fds[4].revents) on_forkserver(now);
      if (!stopping_) {
        if (fds[2].revents) on_run_events(now);
        if (fds[3].revents && packs_watch_) {
          if (!packs_watch_->read_events().empty())
            pack_reload_at_ = now + config_.pack_reload_debounce;
        }
        queue_ready_runs(now);
        if (forkserver_restart_at_ && now >= *forkserver_restart_at_) restart_forkserver(now);
        if (pack_reload_at_ && now >= *pack_reload_at_) {
          pack_reload_at_.reset();
          if (pool_.alive()) reload("pack folder change");
        }
        if (reload_requested_.exchange(false) && pool_.alive()) reload("SIGHUP");
      }
      runner_->tick(now);
      if (now >= next_reclaim_) {
        // Jobs whose end could not be written (and any other daemon's expired leases).
        next_reclaim_ =
            now + std::min<std::chrono::milliseconds>(std::chrono::seconds(30), config_.lease / 2);
        if (int n = queue_->reclaim_expired(wall_ms(), iso_now())) {
          spdlog::warn("{} job(s) with an expired lease are queued again", n);
        }
      }
      store_ok_ = true;
      if (failures_ > 0) spdlog::info("store reachable again after {} retries", failures_);
      failures_ = 0;
      if (stopping_) {
        if (runner_->running() == 0) {
          done = true;
        } else if (grace_end_ && now >= *grace_end_) {
          spdlog::info("grace period over: {} job(s) go back to the queue", runner_->running());
          runner_->interrupt_all();
          grace_end_.reset();
          // The workers are killed; their exits arrive shortly. Bounded by the loop below.
          auto until = steady_clock::now() + std::chrono::seconds(10);
          while (runner_->running() > 0 && pool_.alive() && steady_clock::now() < until) {
            pollfd p{pool_.fd(), POLLIN, 0};
            ::poll(&p, 1, 200);
            on_forkserver(steady_clock::now());
          }
          done = true;
        }
      }
    } catch (const app::StoreError& e) {
      // The store or (shared mode) the database: try again after a pause that doubles while
      // it fails (0.5 s to 8 s), saying so once per outage, not on every try.
      store_ok_ = false;
      // Shared mode: say whether it is the database (a sync asks it; /readyz shows the answer).
      if (catalog_) sync_catalog();
      if (failures_++ == 0)
        spdlog::error("store: {}; retrying with backoff", e.what());
      else
        spdlog::debug("store: {}; retry {}", e.what(), failures_);
      std::this_thread::sleep_for(std::chrono::milliseconds(500) *
                                  (1 << std::min(failures_ - 1, 4)));
      continue;
    } catch (const std::exception& e) {
      spdlog::error("main loop: {}; continuing", e.what());
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  http_->stop();
  pool_.stop();
  // Workers that never reported (the forkserver went first) are queued again.
  runner_->on_forkserver_lost("daemon stopped");
  close_stores();
  spdlog::info("stopped");
  return 0;
}

void Daemon::close_stores() {
  // Readers first: the last connection to close copies and removes a write-ahead log only when
  // it may write, and the store's connections here are all readers.
  stop_waiting_ = true;
  if (notification_waiter_.joinable()) notification_waiter_.join();
  readers_.reset();
  queue_readers_.reset();
  submit_db_.reset();
  runner_.reset();
  queue_.reset();
  db_.reset();
  for (const auto& path : {config_.store, config_.queue_store}) {
    if (auto why = app::cut_store_log(path.string()); !why.empty()) spdlog::warn("{}", why);
  }
}

}  // namespace perfsage::daemon
