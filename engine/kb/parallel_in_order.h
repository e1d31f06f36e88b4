// Runs work(i) for every i below n on up to four threads (fewer on fewer cores), for loading
// packs: each pack is read and compiled on its own (its own YAML documents, its own CLIPS
// environment; CLIPS 6.30 keeps no process-global state that loading touches,
// docs/performance.md), and the caller keeps each result at its index, so what comes out is in
// the order a serial loop gives. The exception of the lowest index that threw is rethrown once
// every thread has ended.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace perfsage::engine {

template <class Work>
void parallel_in_order(size_t n, Work&& work) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0};
  auto drain = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        work(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const size_t threads =
      std::min<size_t>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u), n);
  std::vector<std::thread> workers;
  try {
    for (size_t t = 1; t < threads; ++t) workers.emplace_back(drain);
  } catch (const std::system_error&) {
    // No more threads: those started and this one do the rest.
  }
  drain();
  for (auto& w : workers) w.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace perfsage::engine
