// Hands batches of records to the store from one producer. With `threaded`, a second thread
// inserts one batch while the caller parses the next (double buffering: an OrderedSink with two
// slots); the SQLite connection is used by that thread alone until finish() or destruction.
// Without it, batches are inserted inline. `Batch` is any record container with clear();
// `write(out, batch)` inserts one batch.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>

#include "collectors/common/ordered_sink.h"
#include "store/run_writer.h"

namespace perfsage::collectors {

template <class Batch>
class RecordSink {
 public:
  using Write = std::function<void(store::RunWriter&, Batch&)>;

  RecordSink(store::RunWriter& out, bool threaded, Write write)
      : out_(out), write_(std::move(write)) {
    if (threaded) {
      threaded_.emplace(out_, 2, write_);
      filling_ = threaded_->acquire(0);
    }
  }
  // Destruction without finish() stops the thread without inserting what is still queued
  // (the caller is failing).
  RecordSink(const RecordSink&) = delete;
  RecordSink& operator=(const RecordSink&) = delete;

  // The batch to fill.
  Batch& batch() { return *filling_; }

  // Queues the filled batch for insertion and returns once an empty one is available.
  // Rethrows an insertion error from the writer thread.
  void submit() {
    if (!threaded_) {
      write_inline();
      return;
    }
    threaded_->submit(seq_++);
    filling_ = threaded_->acquire(seq_);
  }

  // Inserts everything queued and stops the thread; rethrows an insertion error.
  void finish() {
    if (!threaded_) {
      write_inline();
      return;
    }
    threaded_->submit(seq_++);
    threaded_->finish(seq_);
  }

 private:
  void write_inline() {
    write_(out_, inline_);
    inline_.clear();
  }

  store::RunWriter& out_;
  Write write_;
  Batch inline_;
  Batch* filling_ = &inline_;
  std::optional<OrderedSink<Batch>> threaded_;
  size_t seq_ = 0;
};

}  // namespace perfsage::collectors
