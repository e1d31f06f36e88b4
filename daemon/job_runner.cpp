#include "daemon/job_runner.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <csignal>

#include "app/cluster_jobs.h"

namespace perfsage::daemon {
namespace {

double seconds_between(SteadyTime a, SteadyTime b) {
  return std::chrono::duration<double>(b - a).count();
}

// Errors of the request or its input are final: running it again gives the same answer. So is
// a damaged store, until someone replaces it.
bool final_error(const std::string& kind) {
  return kind == "usage" || kind == "input" || kind == "pack" || kind == "store_damaged";
}

}  // namespace

void JobRunner::fill(SteadyTime now) {
  while (accepting_ && pool_.alive() && running_.size() < static_cast<size_t>(config_.workers)) {
    int64_t lease_until = clocks_.wall_ms() + config_.lease.count();
    auto job = queue_.claim(owner_, clocks_.iso_now(), lease_until);
    if (!job) return;
    ipc::RunJob req;
    req.set_job_id(job->id);
    for (const auto& in : job->spec.inputs) req.add_inputs(in);
    req.set_job(job->spec.job);
    req.set_lenient(job->spec.lenient);
    req.set_store(config_.store.string());
    req.set_memory_bytes(config_.job_limits.memory_bytes);
    req.set_cpu_ms(static_cast<uint64_t>(config_.job_limits.cpu.count()));
    req.set_kind(app::to_string(job->kind));
    if (job->kind == app::JobKind::run) req.set_fan_out(config_.fan_out && queue_.fans_out());
    if (job->kind == app::JobKind::reduce) req.set_postgres(config_.postgres);
    // Actions are applied on a whole run's facts: not a rank's, and the reduce's run has none.
    if (config_.auto_apply_actions && job->kind == app::JobKind::run)
      req.set_auto_apply_dir(config_.actions_dir.string());
    for (const auto& r : config_.submit_roots) req.add_allowed_roots(r.string());
    for (const auto& w : config_.watch) req.add_allowed_roots(w.path.string());
    Running r;
    r.job = *job;
    r.started = now;
    r.deadline = now + config_.job_limits.time;
    r.renew_at = now + config_.lease / 3;
    auto& slot = running_[job->id] = std::move(r);
    spdlog::info("job {} ({}): analysing {}", job->id, job->spec.job,
                 job->spec.inputs.empty() ? "" : job->spec.inputs.front());
    if (!pool_.run(req)) {
      // The forkserver is gone; on_forkserver_lost() will account for this job.
      slot.stage = "waiting for the forkserver";
      return;
    }
  }
}

void JobRunner::on_message(const ipc::FromForkserver& msg, SteadyTime now) {
  auto it = running_.find(msg.job_id());
  if (it == running_.end()) return;
  Running& r = it->second;
  if (msg.has_started()) {
    r.pid = msg.started().pid();
    r.stage = "started";
  } else if (msg.has_progress()) {
    r.stage = msg.progress().stage();
    r.fraction = msg.progress().fraction();
    if (msg.progress().run_id() != 0) r.run_id = msg.progress().run_id();
  } else if (msg.has_result()) {
    r.result = msg.result();
    // A worker that could not even start (no pipe, no fork) has no exit to wait for.
    if (r.pid == 0) end(it, ipc::WorkerExited(), now);
  } else if (msg.has_exited()) {
    end(it, msg.exited(), now);
  }
}

void JobRunner::end(std::map<int64_t, Running>::iterator it, const ipc::WorkerExited& exited,
                    SteadyTime now) {
  // Out of the running set first: if recording the end fails, the job's lease runs out and
  // the queue hands it out again, instead of it being stuck here.
  Running r = std::move(it->second);
  running_.erase(it);
  const bool rank_result = r.result && r.result->ok() && !r.result->rank_folder().empty();
  // A rank job's folder whose extract will not be kept (the worker failed or died, or the
  // lease was lost) goes now; one with a result goes once it is kept.
  if (r.job.kind == app::JobKind::rank && (!rank_result || r.lost || r.interrupted))
    app::remove_rank_folders(app::rank_spool(config_.store), r.job.id);
  finish(r, exited, now);
}

void JobRunner::record(int64_t id, std::function<void()> write) {
  try {
    write();
  } catch (const app::StoreError& e) {
    spdlog::warn("job {}: its end cannot be written to the queue now ({}); retrying", id, e.what());
    unrecorded_.push_back({id, std::move(write)});
  }
}

void JobRunner::fail(Running& r, app::FailureKind kind, const std::string& reason) {
  app::JobState state = app::JobState::failed;
  try {
    state = queue_.fail(r.job.id, owner_, kind, reason, clocks_.iso_now());
  } catch (const app::StoreError&) {
    const int64_t id = r.job.id;
    const std::string owner = owner_;
    record(id, [this, id, owner, kind, reason] {
      queue_.fail(id, owner, kind, reason, clocks_.iso_now());
    });
    return;
  }
  const char* outcome = app::to_string(state);
  if (state == app::JobState::queued) outcome = "retried";
  if (kind == app::FailureKind::interrupted) outcome = "interrupted";
  metrics_.add("perfsage_jobs_finished_total", 1, {{"outcome", outcome}});
  auto level = kind == app::FailureKind::interrupted ? spdlog::level::info : spdlog::level::warn;
  spdlog::log(level, "job {} ({}): {} — {}", r.job.id, r.job.spec.job, outcome, reason);
}

void JobRunner::finish(Running& r, const ipc::WorkerExited& exited, SteadyTime now) {
  double secs = seconds_between(r.started, now);
  if (r.lost) {
    metrics_.add("perfsage_jobs_finished_total", 1, {{"outcome", "lease_lost"}});
    return spdlog::warn("job {} ({}): ended after its lease was lost; its result is dropped",
                        r.job.id, r.job.spec.job);
  }
  if (r.interrupted) return fail(r, app::FailureKind::interrupted, "the daemon is stopping");
  bool died = exited.signal() != 0 || (exited.exit_code() != 0 && exited.exit_code() != -1);
  if (r.result && r.result->ok() && r.result->ranks_size() > 0) return fan_out(r);
  if (r.result && r.result->ok()) {
    const int64_t id = r.job.id;
    record(id, [this, job = r.job, result = *r.result] {
      bool written = completion_
                         ? completion_(job, result)
                         : queue_.complete(job.id, owner_, result.run_id(), clocks_.iso_now());
      if (!written)
        spdlog::warn(
            "job {} ({}): no longer this daemon's (its lease ran out); its result is "
            "dropped, the job's new owner writes its own",
            job.id, job.spec.job);
    });
    metrics_.add("perfsage_jobs_finished_total", 1, {{"outcome", "done"}});
    metrics_.observe_analysis_seconds(secs);
    metrics_.add("perfsage_ingest_bytes_total", static_cast<double>(r.result->ingest_bytes()));
    metrics_.add("perfsage_ingest_records_total", static_cast<double>(r.result->ingest_records()));
    for (const auto& f : r.result->findings()) {
      metrics_.add("perfsage_findings_total", static_cast<double>(f.count()),
                   {{"pack", f.pack()}, {"severity", f.severity()}});
    }
    spdlog::info("job {} ({}): run {} analysed in {:.2f} s{}", r.job.id, r.job.spec.job,
                 r.result->run_id(), secs, r.result->reused() ? " (inputs already stored)" : "");
    if (r.result->actions_applied() > 0) {
      metrics_.add("perfsage_actions_applied_total", r.result->actions_applied());
      spdlog::info("job {} ({}): {} action(s) of run {} applied under {}", r.job.id, r.job.spec.job,
                   r.result->actions_applied(), r.result->run_id(), config_.actions_dir.string());
    }
    for (const auto& n : r.result->action_notes()) {
      spdlog::info("job {} ({}): action not applied: {}", r.job.id, r.job.spec.job, n);
    }
    return;
  }
  if (r.timed_out) {
    metrics_.add("perfsage_worker_restarts_total", 1, {{"reason", "timeout"}});
    return fail(r, app::FailureKind::crash,
                fmt::format("timed out after {:g} s; the worker was killed",
                            static_cast<double>(config_.job_limits.time.count()) / 1000.0));
  }
  if (r.result) {
    const auto& res = *r.result;
    if (res.error_kind() == "memory") {
      metrics_.add("perfsage_worker_restarts_total", 1, {{"reason", "memory"}});
      return fail(r, app::FailureKind::crash, res.error());
    }
    metrics_.observe_analysis_seconds(secs);
    return fail(r,
                final_error(res.error_kind()) ? app::FailureKind::error : app::FailureKind::crash,
                res.error_kind() + " error: " + res.error());
  }
  std::string how = describe_exit(exited.exit_code(), exited.signal());
  if (exited.signal() == SIGXCPU ||
      (exited.signal() == SIGKILL && exited.cpu_s() * 1000 >= config_.job_limits.cpu.count())) {
    metrics_.add("perfsage_worker_restarts_total", 1, {{"reason", "cpu"}});
    return fail(r, app::FailureKind::crash, "the worker exceeded its CPU limit (" + how + ")");
  }
  metrics_.add("perfsage_worker_restarts_total", 1, {{"reason", died ? "signal" : "no_result"}});
  fail(r, app::FailureKind::crash,
       "the worker died without a result (" + (exited.pid() ? how : "never started") + ")");
}

void JobRunner::fan_out(Running& r) {
  std::vector<app::RankInputs> ranks;
  for (const auto& rank : r.result->ranks())
    ranks.push_back({rank.rank(), {rank.inputs().begin(), rank.inputs().end()}});
  record(r.job.id, [this, job = r.job, ranks] {
    if (queue_.fan_out(job.id, owner_, ranks, clocks_.iso_now())) {
      spdlog::info(
          "job {} ({}): a cluster of {} ranks, fanned out into rank jobs; it is their "
          "reduce, run when they have all ended",
          job.id, job.spec.job, ranks.size());
    } else {
      spdlog::warn("job {} ({}): no longer this daemon's (its lease ran out); not fanned out here",
                   job.id, job.spec.job);
    }
  });
  metrics_.add("perfsage_jobs_finished_total", 1, {{"outcome", "fanned_out"}});
}

void JobRunner::on_forkserver_lost(const std::string& status) {
  for (auto& [id, r] : running_) {
    if (r.interrupted) {
      fail(r, app::FailureKind::interrupted, "the daemon is stopping");
      continue;
    }
    metrics_.add("perfsage_worker_restarts_total", 1, {{"reason", "forkserver"}});
    fail(r, app::FailureKind::crash, "the forkserver died (" + status + ") during the job");
  }
  running_.clear();
}

void JobRunner::tick(SteadyTime now) {
  for (auto it = unrecorded_.begin(); it != unrecorded_.end();) {
    try {
      it->write();
      spdlog::info("job {}: its end is written to the queue", it->id);
      it = unrecorded_.erase(it);
    } catch (const app::StoreError&) {
      try {
        queue_.renew(it->id, owner_, clocks_.wall_ms() + config_.lease.count());
      } catch (const app::StoreError&) {
      }
      ++it;
    }
  }
  for (auto& [id, r] : running_) {
    if (!r.timed_out && !r.interrupted && now >= r.deadline) {
      r.timed_out = true;
      spdlog::warn("job {} ({}): time limit reached, killing its worker", id, r.job.spec.job);
      pool_.kill(id);
    }
    if (now >= r.renew_at && !r.lost) {
      r.renew_at = now + config_.lease / 3;
      if (!queue_.renew(id, owner_, clocks_.wall_ms() + config_.lease.count())) {
        // Another daemon has the job now (this one was paused or cut off past the lease):
        // stop working on it; the new owner's result is the job's.
        r.lost = true;
        spdlog::warn(
            "job {} ({}): its lease ran out and another daemon has it; stopping its "
            "worker, its result will be dropped",
            id, r.job.spec.job);
        pool_.kill(id);
      }
    }
  }
}

std::optional<SteadyTime> JobRunner::next_deadline() const {
  std::optional<SteadyTime> out;
  for (const auto& [id, r] : running_) {
    auto t = std::min(r.timed_out ? SteadyTime::max() : r.deadline, r.renew_at);
    if (!out || t < *out) out = t;
  }
  return out;
}

void JobRunner::interrupt_all() {
  for (auto& [id, r] : running_) {
    if (r.interrupted) continue;
    r.interrupted = true;
    pool_.kill(id);
  }
}

std::vector<RunningJobView> JobRunner::snapshot(SteadyTime now) const {
  std::vector<RunningJobView> out;
  for (const auto& [id, r] : running_) {
    out.push_back({id, r.job.spec.job, r.pid, r.stage, r.fraction, seconds_between(r.started, now),
                   r.run_id});
  }
  return out;
}

}  // namespace perfsage::daemon
