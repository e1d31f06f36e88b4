// Hands numbered batches from several producer threads to the store in number order. A writer
// thread inserts batch 0, 1, 2, ... as each becomes ready, so the stored rows are in the order
// of the input whatever thread parsed them; producers fill one of `slots` reusable batches and
// wait when the writer is `slots` batches behind. The SQLite connection is used by the writer
// thread alone until finish() or destruction.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "store/run_writer.h"

namespace perfsage::collectors {

template <class Batch>
class OrderedSink {
 public:
  using Write = std::function<void(store::RunWriter&, Batch&)>;

  // `slots` must exceed the number of producers, or a producer can wait on a batch that the
  // other producers cannot make ready.
  OrderedSink(store::RunWriter& out, size_t slots, Write write)
      : out_(out), write_(std::move(write)), slots_(slots), batches_(slots), ready_(slots, false) {
    thread_ = std::thread([this] { run(); });
  }
  // Stops the writer without inserting what is still queued (the caller is failing).
  ~OrderedSink() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  OrderedSink(const OrderedSink&) = delete;
  OrderedSink& operator=(const OrderedSink&) = delete;

  // The (empty) batch for number `seq`, once the writer has taken batch seq - slots; nullptr
  // after abort(). Rethrows an insertion error from the writer thread.
  Batch* acquire(size_t seq) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return seq < written_ + slots_ || error_ || stop_; });
    if (error_) std::rethrow_exception(error_);
    if (stop_) return nullptr;
    return &batches_[seq % slots_];
  }

  // Gives up: the writer stops after its current batch and waiting producers get nullptr. The
  // caller discards what was inserted (a savepoint rollback).
  void abort() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
  }

  // Batch `seq` is filled.
  void submit(size_t seq) {
    {
      std::lock_guard lock(mu_);
      ready_[seq % slots_] = true;
    }
    cv_.notify_all();
  }

  // Waits until batches 0 .. total-1 are inserted, stops the writer; rethrows an insertion
  // error.
  void finish(size_t total) {
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return written_ >= total || error_; });
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void run() {
    bool failed = false;
    for (;;) {
      size_t slot;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return ready_[written_ % slots_] || stop_; });
        if (!ready_[written_ % slots_]) return;
        slot = written_ % slots_;
      }
      try {
        if (!failed) write_(out_, batches_[slot]);  // after an error, batches are dropped
      } catch (...) {
        failed = true;
        std::lock_guard lock(mu_);
        error_ = std::current_exception();
      }
      batches_[slot].clear();
      {
        std::lock_guard lock(mu_);
        ready_[slot] = false;
        ++written_;
      }
      cv_.notify_all();
    }
  }

  store::RunWriter& out_;
  Write write_;
  const size_t slots_;
  std::vector<Batch> batches_;
  std::vector<bool> ready_;
  size_t written_ = 0;  // batches inserted (or dropped after an error)
  bool stop_ = false;
  std::exception_ptr error_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

// Runs produce(0), ..., produce(n - 1) at once, the first on the calling thread. A producer
// that throws aborts the sink, so the others get nullptr from acquire() and stop; once all have
// returned, the first exception (by producer number) is rethrown.
template <class Batch, class Produce>
void run_producers(OrderedSink<Batch>& sink, int n, const Produce& produce) {
  std::vector<std::exception_ptr> errors(static_cast<size_t>(n));
  auto guarded = [&](size_t id) {
    try {
      produce(id);
    } catch (...) {
      errors[id] = std::current_exception();
      sink.abort();
    }
  };
  {
    std::vector<std::thread> threads;
    for (int i = 1; i < n; ++i) threads.emplace_back(guarded, static_cast<size_t>(i));
    guarded(0);
    for (auto& t : threads) t.join();
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace perfsage::collectors
