// The forkserver: a single-threaded process, exec'd by perfsaged at start, that holds the
// knowledge (packs, hardware specs, patterns) and forks one worker per job. Forking from it is
// safe where forking the multi-threaded daemon is not (no lock can be held by another thread,
// no SQLite connection is open), and every worker starts from the knowledge the forkserver
// validated last: a reload that fails leaves the old knowledge serving, even in new workers.
//
// Protocol (daemon/ipc.proto, length-prefixed on one socket):
//   daemon → forkserver: LoadKnowledge, RunJob, KillJob
//   forkserver → daemon: KnowledgeLoaded, Started, Progress / JobResult (relayed from the
//   worker), WorkerExited (always after the worker's last message)
// A worker runs under RLIMIT_AS and RLIMIT_CPU, dies with the forkserver (PR_SET_PDEATHSIG),
// which dies with the daemon.
#pragma once

#include <filesystem>
#include <string>

namespace perfsage::daemon {

struct ForkserverOptions {
  int fd = -1;                        // the socket to the daemon
  std::filesystem::path config_file;  // kb: and limits: are read from it on every load
};

// Runs until the daemon closes the socket; returns the process exit code.
int run_forkserver(const ForkserverOptions& options);

}  // namespace perfsage::daemon
