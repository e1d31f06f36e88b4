// What the main loop knows and the HTTP threads show: the knowledge serving and the last load,
// runs still being written, jobs running. The main loop writes, handlers read copies.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/ipc.pb.h"
#include "daemon/job_runner.h"
#include "daemon/run_tracker.h"

namespace perfsage::daemon {

struct ReloadInfo {
  std::string time;
  std::string trigger;  // start | SIGHUP | pack folder change | API
  bool ok = false;
  std::string error;
  uint64_t generation = 0;  // serving after this load
  std::vector<std::string> messages;
};

struct StateSnapshot {
  bool knowledge_loaded = false;
  uint64_t generation = 0;
  // Of the knowledge serving: those that serve ("ok") and those left out as broken ("error").
  std::vector<perfsage::v1::PackStatus> packs;
  ReloadInfo last_reload;
  std::vector<PendingRun> pending;
  std::vector<RunningJobView> running;
  size_t watched_folders = 0;  // the configured watch folders being watched
  size_t inotify_watches = 0;  // directories under inotify watch: those folders and all below
  bool stopping = false;
  bool shared = false;          // shared mode (a PostgreSQL queue and catalog)
  std::string database_error;   // shared mode: why the database did not answer; empty when it did

  // Packs the knowledge serving left out because they do not load: the service is degraded.
  std::vector<const perfsage::v1::PackStatus*> broken_packs() const {
    std::vector<const perfsage::v1::PackStatus*> out;
    for (const auto& p : packs)
      if (p.status() != "ok") out.push_back(&p);
    return out;
  }
  size_t serving_packs() const { return packs.size() - broken_packs().size(); }
};

class SharedState {
 public:
  StateSnapshot get() const {
    std::lock_guard lock(mu_);
    return s_;
  }
  template <class F>
  void update(F&& f) {
    std::lock_guard lock(mu_);
    f(s_);
  }

 private:
  mutable std::mutex mu_;
  StateSnapshot s_;
};

}  // namespace perfsage::daemon
