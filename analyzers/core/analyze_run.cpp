#include "analyzers/core/analyze_run.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>

#include "analyzers/core/shared_passes.h"
#include "analyzers/core/timed_part.h"
#include "store/temp_derived_tables.h"

namespace perfsage::analyzers {
namespace {

// Runs analyzers concurrently as their inputs become ready, in the serial order where several
// are. An analyzer that adds rows to raw tables (adds_to) or writes on_store runs on the store's
// connection (the launch pass it reads made first, on a reader, so the store is not held while
// the pass is read); every
// other one on a reader connection of its own, writing its tables as TEMP tables there
// (store/temp_derived_tables.h), whose rows are copied into the store once it ends. The store's
// connection is used by one thread at a time. An analyzer starts only once the rows it reads
// are committed, so the results are those of a serial run. `threads` bounds the analyzers
// working at once, not those waiting: one that waits for a shared pass another is making, or
// for the store's connection while an analyzer runs on it, gives its core to the next ready
// analyzer meanwhile.
class Schedule {
 public:
  Schedule(store::Database& db, int64_t run_id, const AnalyzerResources& resources,
           unsigned threads, const AnalyzerProgress& progress)
      : db_(db),
        run_id_(run_id),
        resources_(resources),
        all_(analyzers()),
        inputs_(analyzer_inputs(all_)),
        state_(all_.size(), kWaiting),
        threads_(threads),
        progress_(progress) {
    if (resources.passes != nullptr)
      resources.passes->on_wait({[this] { begin_wait(); }, [this] { end_wait(); }});
  }

  ~Schedule() {
    if (resources_.passes != nullptr) resources_.passes->on_wait({});
  }

  void run() {
    std::vector<std::thread> workers;
    {
      std::unique_lock lock(mutex_);
      for (;;) {
        size_t next = all_.size();
        changed_.wait(lock, [&] {
          next = ready();
          return error_ || finished() || (next < all_.size() && running_ < threads_);
        });
        if (error_ || finished()) break;
        state_[next] = kRunning;
        ++running_;
        workers.emplace_back([this, next] { run_one(next); });
      }
      changed_.wait(lock, [&] { return running_ == 0; });
    }
    for (auto& w : workers) w.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  enum State { kWaiting, kRunning, kDone };

  bool finished() const {
    return std::all_of(state_.begin(), state_.end(), [](State s) { return s == kDone; });
  }
  // The first waiting analyzer whose inputs are done, or all_.size().
  size_t ready() const {
    for (size_t i = 0; i < all_.size(); ++i) {
      if (state_[i] != kWaiting) continue;
      if (std::all_of(inputs_[i].begin(), inputs_[i].end(),
                      [&](size_t w) { return state_[w] == kDone; }))
        return i;
    }
    return all_.size();
  }

  // An analyzer's thread waits (for the store or a pass): the next ready analyzer may start.
  void begin_wait() {
    std::lock_guard lock(mutex_);
    --running_;
    changed_.notify_all();
  }
  // Its wait is over: it works again, beside those started meanwhile, until it ends.
  void end_wait() {
    std::lock_guard lock(mutex_);
    ++running_;
  }
  // The store's connection, for `analysis` (an analyzer running on it: held for its whole run)
  // or for a copy of rows. Only a wait behind an analysis gives the core away: a copy holds the
  // connection for moments, and on a small run the analyzers started meanwhile only contend.
  std::unique_lock<std::mutex> lock_store(bool analysis) {
    std::unique_lock lock(store_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) {
      const bool yield = store_analysis_.load();
      if (yield) begin_wait();
      lock.lock();
      if (yield) end_wait();
    }
    store_analysis_ = analysis;
    return lock;
  }

  void run_one(size_t i) {
    const Analyzer& a = all_[i];
    try {
      if (!a.adds_to.empty() || a.on_store) {
        if (a.uses_launch_pass && resources_.passes != nullptr)
          resources_.passes->prepare_launch_pass(*store::Database::open_reader(db_.path()),
                                                 run_id_);
        std::unique_lock store_lock = lock_store(true);
        timed_part("analyzer", a.name, [&] { a.run(db_, run_id_, resources_); });
      } else {
        auto reader = store::Database::open_reader(db_.path());
        store::create_temp_tables(*reader, a.writes);
        timed_part("analyzer", a.name, [&] { a.run(*reader, run_id_, resources_); });
        std::unique_lock store_lock = lock_store(false);
        store::Transaction txn(db_);
        for (const auto& t : a.writes) store::copy_run_rows(*reader, db_, t, run_id_);
        txn.commit();
      }
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    state_[i] = kDone;
    --running_;
    // Under the lock: the callback is not called from two threads at once.
    if (progress_ && !error_) progress_(++done_, all_.size());
    changed_.notify_all();
  }

  store::Database& db_;
  const int64_t run_id_;
  const AnalyzerResources& resources_;
  const std::vector<Analyzer>& all_;
  const std::vector<std::set<size_t>> inputs_;
  std::mutex mutex_;  // guards state_, running_, error_
  std::condition_variable changed_;
  std::vector<State> state_;
  unsigned running_ = 0;
  const unsigned threads_;
  const AnalyzerProgress& progress_;
  size_t done_ = 0;
  std::exception_ptr error_;
  std::mutex store_mutex_;                   // one thread at a time on db_
  std::atomic<bool> store_analysis_{false};  // its holder runs an analyzer on it (lock_store)
};

}  // namespace

unsigned analyzer_threads() {
  if (const char* set = std::getenv("PERFSAGE_ANALYZER_THREADS")) {
    int n = std::atoi(set);
    if (n >= 1) return static_cast<unsigned>(std::min(n, 16));
  }
  return std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
}

store::RunRecord analyze_run(store::Database& db, int64_t run_id, const RunIdentity& identity,
                             const AnalyzerResources& resources, unsigned threads,
                             const AnalyzerProgress& progress) {
  store::ensure_derived_tables(db, derived_tables());
  const auto& all = analyzers();
  auto users = [&](bool Analyzer::*uses) {
    return static_cast<int>(
        std::count_if(all.begin(), all.end(), [&](const Analyzer& a) { return a.*uses; }));
  };
  SharedPasses passes(users(&Analyzer::uses_launch_pass), users(&Analyzer::uses_op_groups),
                      users(&Analyzer::uses_op_tasks));
  AnalyzerResources shared = resources;
  shared.passes = &passes;
  // A store in memory has no file a second connection could read; a write-protected one
  // cannot take the copied rows.
  if (threads == 0) threads = analyzer_threads();
  if (threads > 1 && db.path() != ":memory:" && !db.read_only()) {
    Schedule(db, run_id, shared, threads, progress).run();
  } else {
    for (size_t i = 0; i < all.size(); ++i) {
      timed_part("analyzer", all[i].name, [&] { all[i].run(db, run_id, shared); });
      if (progress) progress(i + 1, all.size());
    }
  }
  store::RunRecord summary;
  timed_part("analyzer", "summary", [&] { summary = compute_run_totals(db, run_id, identity); });
  return summary;
}

}  // namespace perfsage::analyzers
