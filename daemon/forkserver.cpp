#include "daemon/forkserver.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <new>
#include <vector>

#include "app/front_end_names.h"
#include "daemon/analysis_bridge.h"
#include "daemon/ipc.h"

namespace perfsage::daemon {
namespace {

struct Worker {
  int64_t job_id = 0;
  int pipe = -1;  // read end of the worker's messages; -1 once drained
  MessageReader reader;
};

// CLIPS memory of the packs' environments a worker leaves to its exit rather than freeing (a
// small run's take about 2 MiB each), at most a sixteenth of the job's memory limit; beyond it,
// they are freed as they are done with.
constexpr uint64_t kEnvironmentsLeftToExit = 64u << 20;

// Written by the new-handler when an allocation fails under RLIMIT_AS: prepared before the
// job starts, since nothing can be allocated by then.
std::string g_out_of_memory;
int g_result_fd = -1;

void on_out_of_memory() {
  if (!g_out_of_memory.empty()) {
    ssize_t n = ::write(g_result_fd, g_out_of_memory.data(), g_out_of_memory.size());
    (void)n;
  }
  _exit(3);
}

std::string prepare_out_of_memory(uint64_t limit) {
  ipc::FromWorker msg;
  auto* r = msg.mutable_result();
  r->set_ok(false);
  r->set_error_kind("memory");
  r->set_error("the worker ran out of memory (limit " + std::to_string(limit >> 20) + " MiB)");
  std::string body = msg.SerializeAsString();
  std::string out;
  auto size = static_cast<uint32_t>(body.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((size >> (8 * i)) & 0xff));
  return out + body;
}

// In the child after fork: from here on this process is the worker.
[[noreturn]] void worker_main(const ipc::RunJob& job, const Serving& serving, int result_fd) {
  // Nothing of the forkserver's is needed: keep stdio and the result pipe only.
  if (result_fd != 3) {
    ::dup2(result_fd, 3);
    result_fd = 3;
  }
  ::close_range(4, ~0U, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) _exit(4);  // the forkserver is already gone
  sigset_t all;
  sigemptyset(&all);
  ::sigprocmask(SIG_SETMASK, &all, nullptr);
  for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGPIPE}) ::signal(s, SIG_DFL);
  if (job.memory_bytes() > 0) {
    // On top of what the forkserver already maps: under ASan that is terabytes of shadow
    // reservation, and an absolute limit would fail the worker's first allocation.
    rlim_t limit = app::mapped_bytes() + job.memory_bytes();
    rlimit as{limit, limit};
    ::setrlimit(RLIMIT_AS, &as);
  }
  if (job.cpu_ms() > 0) {
    // The soft limit sends SIGXCPU; the hard one, a second later, SIGKILL.
    rlim_t secs = (job.cpu_ms() + 999) / 1000;
    rlimit cpu{secs, secs + 1};
    ::setrlimit(RLIMIT_CPU, &cpu);
  }
  g_result_fd = result_fd;
  g_out_of_memory = prepare_out_of_memory(job.memory_bytes());
  app::leave_environments_to_exit(job.memory_bytes() > 0
                                      ? std::min(kEnvironmentsLeftToExit, job.memory_bytes() / 16)
                                      : kEnvironmentsLeftToExit);
  std::set_new_handler(on_out_of_memory);

  auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  int64_t last_run = 0;
  auto progress = [&](std::string_view stage, double fraction, int64_t run_id) {
    auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::milliseconds(200) && fraction > 0 && fraction < 1 &&
        run_id == last_run)
      return;
    last = now;
    last_run = run_id;
    ipc::FromWorker msg;
    msg.mutable_progress()->set_stage(std::string(stage));
    msg.mutable_progress()->set_fraction(fraction);
    msg.mutable_progress()->set_run_id(run_id);
    write_message(result_fd, msg);
  };
  ipc::FromWorker msg;
  *msg.mutable_result() = run_job(job, serving, progress);
  write_message(result_fd, msg);
  _exit(0);
}

class Forkserver {
 public:
  explicit Forkserver(const ForkserverOptions& o) : opts_(o) {}
  int run();

 private:
  void on_request(const ipc::ToForkserver& req);
  void start(const ipc::RunJob& job);
  void relay(Worker& w);
  void reap();
  void send(ipc::FromForkserver& msg) { alive_ = write_message(opts_.fd, msg) && alive_; }

  ForkserverOptions opts_;
  Serving serving_;
  std::map<pid_t, Worker> workers_;
  int sigfd_ = -1;
  bool alive_ = true;
};

void Forkserver::start(const ipc::RunJob& job) {
  int p[2];
  ipc::FromForkserver reply;
  reply.set_job_id(job.job_id());
  if (::pipe2(p, O_CLOEXEC) != 0) {
    auto* r = reply.mutable_result();
    r->set_ok(false);
    r->set_error_kind("internal");
    r->set_error("cannot create a pipe for the worker");
    send(reply);
    return;
  }
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(p[0]);
    worker_main(job, serving_, p[1]);
  }
  ::close(p[1]);
  if (pid < 0) {
    ::close(p[0]);
    auto* r = reply.mutable_result();
    r->set_ok(false);
    r->set_error_kind("internal");
    r->set_error("cannot fork a worker");
    send(reply);
    return;
  }
  ::fcntl(p[0], F_SETFL, O_NONBLOCK);
  Worker& w = workers_[pid];
  w.job_id = job.job_id();
  w.pipe = p[0];
  auto* s = reply.mutable_started();
  s->set_job_id(job.job_id());
  s->set_pid(pid);
  s->set_generation(serving_.generation);
  send(reply);
}

void Forkserver::relay(Worker& w) {
  for (;;) {
    ipc::FromWorker msg;
    auto st = w.reader.read(w.pipe, msg);
    if (st == MessageReader::Status::message) {
      ipc::FromForkserver out;
      out.set_job_id(w.job_id);
      if (msg.has_progress()) *out.mutable_progress() = msg.progress();
      if (msg.has_result()) *out.mutable_result() = msg.result();
      send(out);
      continue;
    }
    if (st != MessageReader::Status::again) {
      ::close(w.pipe);
      w.pipe = -1;
    }
    return;
  }
}

void Forkserver::reap() {
  for (;;) {
    int status = 0;
    rusage ru{};
    pid_t pid = ::wait4(-1, &status, WNOHANG, &ru);
    if (pid <= 0) return;
    auto it = workers_.find(pid);
    if (it == workers_.end()) continue;
    Worker& w = it->second;
    if (w.pipe >= 0) {
      ::fcntl(w.pipe, F_SETFL, 0);  // the writer is gone: read to the end, blocking is fine
      relay(w);
      if (w.pipe >= 0) ::close(w.pipe);
    }
    ipc::FromForkserver out;
    out.set_job_id(w.job_id);
    auto* e = out.mutable_exited();
    e->set_job_id(w.job_id);
    e->set_pid(pid);
    e->set_exit_code(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    e->set_signal(WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    e->set_max_rss_kb(ru.ru_maxrss);
    e->set_cpu_s(static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
    workers_.erase(it);
    send(out);
  }
}

void Forkserver::on_request(const ipc::ToForkserver& req) {
  if (req.has_load()) {
    ipc::FromForkserver out;
    *out.mutable_loaded() = load_serving(opts_.config_file, req.load().generation(), serving_);
    send(out);
  } else if (req.has_run()) {
    start(req.run());
  } else if (req.has_kill()) {
    for (auto& [pid, w] : workers_) {
      if (w.job_id == req.kill().job_id()) ::kill(pid, SIGKILL);
    }
  }
}

int Forkserver::run() {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &mask, nullptr);
  sigfd_ = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);  // reloads come from the daemon, not the terminal
  ::signal(SIGINT, SIG_IGN);  // a Ctrl-C reaches the whole group: the daemon decides
  ::fcntl(opts_.fd, F_SETFL, O_NONBLOCK);
  MessageReader reader;
  while (alive_) {
    std::vector<pollfd> fds = {{opts_.fd, POLLIN, 0}, {sigfd_, POLLIN, 0}};
    std::vector<pid_t> order;
    for (auto& [pid, w] : workers_) {
      if (w.pipe < 0) continue;
      fds.push_back({w.pipe, POLLIN, 0});
      order.push_back(pid);
    }
    if (::poll(fds.data(), fds.size(), -1) < 0) continue;
    for (size_t i = 2; i < fds.size(); ++i) {
      if (fds[i].revents) relay(workers_[order[i - 2]]);
    }
    if (fds[1].revents) {
      signalfd_siginfo si;
      while (::read(sigfd_, &si, sizeof si) == sizeof si) {
      }
      reap();
    }
    if (fds[0].revents) {
      for (;;) {
        ipc::ToForkserver req;
        auto st = reader.read(opts_.fd, req);
        if (st == MessageReader::Status::message) {
          on_request(req);
          continue;
        }
        if (st != MessageReader::Status::again) alive_ = false;
        break;
      }
    }
  }
  for (auto& [pid, w] : workers_) ::kill(pid, SIGKILL);
  return 0;
}

}  // namespace

int run_forkserver(const ForkserverOptions& options) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) return 1;
  Forkserver fs(options);
  return fs.run();
}

}  // namespace perfsage::daemon
