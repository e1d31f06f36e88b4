#include "daemon/worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <system_error>

namespace perfsage::daemon {

std::string describe_exit(int exit_code, int signal) {
  if (signal > 0) {
    const char* abbrev = sigabbrev_np(signal);
    return std::string("SIG") + (abbrev ? abbrev : "?") + " (signal " + std::to_string(signal) +
           ")";
  }
  return "exit code " + std::to_string(exit_code);
}

WorkerPool::~WorkerPool() {
  stop();
}

void WorkerPool::start() {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    throw std::system_error(errno, std::generic_category(), "socketpair for the forkserver");
  }
  // Everything the child needs is prepared here: after fork() in a threaded process only
  // async-signal-safe calls are allowed until exec.
  std::string exe = exe_.string(), fd_arg = "3", config = config_.string();
  std::vector<char*> argv = {exe.data(), const_cast<char*>("--forkserver"), fd_arg.data()};
  if (!config.empty()) {
    argv.push_back(const_cast<char*>("--config"));
    argv.push_back(config.data());
  }
  argv.push_back(nullptr);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(1);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (::dup2(sv[1], 3) < 0) _exit(1);  // dup2 clears close-on-exec on the copy
    ::execv(argv[0], argv.data());
    _exit(127);
  }
  ::close(sv[1]);
  if (pid < 0) {
    ::close(sv[0]);
    throw std::system_error(errno, std::generic_category(), "fork for the forkserver");
  }
  ::fcntl(sv[0], F_SETFL, O_NONBLOCK);
  fd_ = sv[0];
  pid_ = pid;
  reader_ = MessageReader();
}

bool WorkerPool::send(const ipc::ToForkserver& msg) {
  return fd_ >= 0 && write_message(fd_, msg);
}

bool WorkerPool::load(uint64_t generation) {
  ipc::ToForkserver m;
  m.mutable_load()->set_generation(generation);
  return send(m);
}

bool WorkerPool::run(const ipc::RunJob& job) {
  ipc::ToForkserver m;
  *m.mutable_run() = job;
  return send(m);
}

bool WorkerPool::kill(int64_t job_id) {
  ipc::ToForkserver m;
  m.mutable_kill()->set_job_id(job_id);
  return send(m);
}

std::vector<ipc::FromForkserver> WorkerPool::read(bool& lost, std::string& lost_status) {
  std::vector<ipc::FromForkserver> out;
  lost = false;
  if (fd_ < 0) return out;
  for (;;) {
    ipc::FromForkserver msg;
    auto st = reader_.read(fd_, msg);
    if (st == MessageReader::Status::message) {
      out.push_back(std::move(msg));
      continue;
    }
    if (st == MessageReader::Status::again) return out;
    break;
  }
  // The forkserver closed its end: it is gone (or going).
  ::close(fd_);
  fd_ = -1;
  int status = 0;
  ::waitpid(pid_, &status, 0);
  lost = true;
  lost_status = describe_exit(WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                              WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  pid_ = -1;
  return out;
}

bool WorkerPool::wait_for(ipc::FromForkserver::MsgCase kind, int timeout_ms,
                          ipc::FromForkserver& out, std::vector<ipc::FromForkserver>& others) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (fd_ >= 0) {
    bool lost = false;
    std::string why;
    for (auto& m : read(lost, why)) {
      if (m.msg_case() == kind) {
        out = std::move(m);
        kind = ipc::FromForkserver::MSG_NOT_SET;  // found: keep the rest in order
        continue;
      }
      others.push_back(std::move(m));
    }
    if (kind == ipc::FromForkserver::MSG_NOT_SET) return true;
    if (lost) return false;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(left));
  }
  return false;
}

void WorkerPool::stop() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (pid_ > 0) {
    int status = 0;
    // The forkserver exits when its socket closes; give it a moment, then make sure.
    for (int i = 0; i < 100; ++i) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      ::usleep(20000);
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
}

}  // namespace perfsage::daemon
