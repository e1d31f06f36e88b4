// Hands batches of records to the store. With `threaded`, a second thread inserts one batch
// while the caller parses the next (double buffering); the SQLite connection is used by that
// thread alone until finish() or destruction. Without it, batches are inserted inline.
// `Batch` is any record container with clear(); `write(out, batch)` inserts one batch.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "store/run_writer.h"

namespace perfsage::collectors {

template <class Batch>
class RecordSink {
 public:
  using Write = std::function<void(store::RunWriter&, Batch&)>;

  RecordSink(store::RunWriter& out, bool threaded, Write write)
      : out_(out), write_(std::move(write)), threaded_(threaded) {
    if (threaded_) thread_ = std::thread([this] { run(); });
  }
  // Stops the thread without inserting what is still queued (the caller is failing).
  ~RecordSink() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  RecordSink(const RecordSink&) = delete;
  RecordSink& operator=(const RecordSink&) = delete;

  // The batch to fill.
  Batch& batch() { return *filling_; }

  // Queues the filled batch for insertion and returns once an empty one is available.
  // Rethrows an insertion error from the writer thread.
  void submit() {
    if (!threaded_) {
      write(*filling_);
      return;
    }
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return pending_ == nullptr; });
    if (error_) std::rethrow_exception(error_);
    pending_ = filling_;
    filling_ = filling_ == &a_ ? &b_ : &a_;
    lock.unlock();
    cv_.notify_all();
  }

  // Inserts everything queued and stops the thread; rethrows an insertion error.
  void finish() {
    if (!threaded_) {
      write(*filling_);
      return;
    }
    submit();
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return pending_ == nullptr; });
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void write(Batch& b) {
    write_(out_, b);
    b.clear();
  }

  void run() {
    for (;;) {
      Batch* b;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return pending_ != nullptr || stop_; });
        if (!pending_) return;
        b = pending_;
      }
      try {
        write(*b);
      } catch (...) {
        std::lock_guard lock(mu_);
        error_ = std::current_exception();
        b->clear();
      }
      {
        std::lock_guard lock(mu_);
        pending_ = nullptr;
      }
      cv_.notify_all();
    }
  }

  store::RunWriter& out_;
  Write write_;
  Batch a_, b_;
  Batch* filling_ = &a_;
  Batch* pending_ = nullptr;  // owned by the writer thread while non-null
  bool threaded_, stop_ = false;
  std::exception_ptr error_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace perfsage::collectors
