// perfsage analyze's knowledge while it loads: the packs are read and compiled on a thread while
// the caller creates its store and ingests and analyses the inputs (about half of a small run's
// time: docs/performance.md). The hardware specs and fusion patterns, which the analyzers read,
// are loaded first, on the caller's thread. wait() gives what load_knowledge gives: the same
// Knowledge, or the same error (a request error of the packs before a broken hardware or
// pattern file), and rethrows what the load threw.
//
//   app::KnowledgeInFlight knowledge(config, resources, {kbs}, print_messages);
//   app::StoreHandle store("");  // nothing of a failed load may outlive it: a temporary store
//   auto out = app::analyze(store.db(), request, knowledge, limits);  // waits for the packs
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "app/knowledge.h"

namespace perfsage::app {

class KnowledgeInFlight {
 public:
  // `on_loaded` runs on the loading thread, given the packs' Knowledge (its messages) once they
  // are compiled, when the whole load succeeded; it ends before loaded() turns true.
  KnowledgeInFlight(const AppConfig& config, const Resources& resources, KnowledgeRequest request,
                    std::function<void(const Knowledge&)> on_loaded = {});
  ~KnowledgeInFlight();
  KnowledgeInFlight(const KnowledgeInFlight&) = delete;
  KnowledgeInFlight& operator=(const KnowledgeInFlight&) = delete;

  // The hardware specs and fusion patterns (its packs are empty until wait()); nullptr when
  // they did not load, which wait() then reports.
  const Knowledge* analyzer_knowledge() const {
    return analyzer_error_ ? nullptr : knowledge_.get();
  }

  // True once the packs are loaded (or failed to) and on_loaded has run; does not wait.
  bool loaded() const { return done_.load(std::memory_order_acquire); }

  // Waits for the packs; the loaded knowledge or the load's error.
  const Result<std::shared_ptr<const Knowledge>>& wait();

 private:
  std::shared_ptr<Knowledge> knowledge_;  // the analyzers' part now, the packs moved in by wait()
  std::optional<Error> analyzer_error_;
  std::optional<Result<std::shared_ptr<Knowledge>>> packs_;  // written by the thread
  std::exception_ptr thrown_;                                // by the thread
  std::optional<Result<std::shared_ptr<const Knowledge>>> loaded_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace perfsage::app
