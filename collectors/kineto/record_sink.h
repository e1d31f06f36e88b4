// Hands batches of records to the store. With `threaded`, a second thread inserts one batch
// while the caller parses the next (double buffering); the SQLite connection is used by that
// thread alone until finish(). Without it, batches are inserted inline.
#pragma once

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "collectors/kineto/event_mapper.h"
#include "store/run_writer.h"

namespace perfsage::collectors::kineto {

class RecordSink {
 public:
  RecordSink(store::RunWriter& out, bool threaded);
  ~RecordSink();
  RecordSink(const RecordSink&) = delete;
  RecordSink& operator=(const RecordSink&) = delete;

  // The batch to fill.
  Batch& batch() { return *filling_; }
  // Queues the filled batch for insertion and returns once an empty one is available.
  // Rethrows an insertion error from the writer thread.
  void submit();
  // Inserts everything queued and stops the thread; rethrows an insertion error.
  void finish();

 private:
  void write(Batch& b);
  void run();

  store::RunWriter& out_;
  Batch a_, b_;
  Batch* filling_ = &a_;
  Batch* pending_ = nullptr;  // owned by the writer thread while non-null
  bool threaded_, stop_ = false;
  std::exception_ptr error_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace perfsage::collectors::kineto
