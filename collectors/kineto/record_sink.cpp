#include "collectors/kineto/record_sink.h"

namespace perfsage::collectors::kineto {

RecordSink::RecordSink(store::RunWriter& out, bool threaded) : out_(out), threaded_(threaded) {
  if (threaded_) thread_ = std::thread([this] { run(); });
}

RecordSink::~RecordSink() {
  if (thread_.joinable()) {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
}

void RecordSink::write(Batch& b) {
  for (size_t i = 0; i < b.n_host; ++i) out_.add(b.host[i]);
  for (size_t i = 0; i < b.n_device; ++i) out_.add(b.device[i]);
  for (const auto& s : b.steps) out_.add(s);
  b.clear();
}

void RecordSink::run() {
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

void RecordSink::submit() {
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

void RecordSink::finish() {
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

}  // namespace perfsage::collectors::kineto
