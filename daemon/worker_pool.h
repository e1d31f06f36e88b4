// The daemon's side of the forkserver (daemon/forkserver.h): starts it as a fresh process
// (fork + exec of perfsaged itself, so nothing of the daemon's threads or SQLite connections is
// inherited), sends it requests and reads what it says. Call everything from the main thread:
// the forkserver dies with the thread that started it (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "daemon/ipc.h"
#include "daemon/ipc.pb.h"

namespace perfsage::daemon {

class WorkerPool {
 public:
  WorkerPool(std::filesystem::path executable, std::filesystem::path config_file)
      : exe_(std::move(executable)), config_(std::move(config_file)) {}
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Starts the forkserver; throws std::system_error when it cannot.
  void start();
  bool alive() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  pid_t pid() const { return pid_; }

  bool load(uint64_t generation);
  bool run(const ipc::RunJob& job);
  bool kill(int64_t job_id);
  // What the forkserver said since the last call. When it is gone, `lost` is set, its exit
  // status is in `lost_status` and the pool is not alive until start() again.
  std::vector<ipc::FromForkserver> read(bool& lost, std::string& lost_status);
  // Waits up to `timeout_ms` for one message of the given kind, keeping the others in order.
  bool wait_for(ipc::FromForkserver::MsgCase kind, int timeout_ms, ipc::FromForkserver& out,
                std::vector<ipc::FromForkserver>& others);
  // Closes the socket (the forkserver kills its workers and exits) and reaps it.
  void stop();

 private:
  bool send(const ipc::ToForkserver& msg);
  std::filesystem::path exe_, config_;
  int fd_ = -1;
  pid_t pid_ = -1;
  MessageReader reader_;
};

// "SIGSEGV (signal 11)" for a worker's wait status parts.
std::string describe_exit(int exit_code, int signal);

}  // namespace perfsage::daemon
