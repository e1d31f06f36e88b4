// One pack's CLIPS environment as the compiler leaves it: sandboxed, its constructs loaded, no
// fact asserted, never reset or run. The first evaluation in a process takes it instead of
// creating an environment and loading the constructs again (most of a small run's pack time);
// every later evaluation in that process builds its own, so none sees what another did. A
// forked process (a daemon worker forked from the forkserver that compiled the packs, an
// untrusted pack's evaluator child) takes its own copy-on-write copy, untouched by any other.
#pragma once

#include <atomic>
#include <memory>
#include <utility>

#include "engine/clips/environment.h"

namespace perfsage::engine::clips {

class PristineEnvironment {
 public:
  explicit PristineEnvironment(std::unique_ptr<Environment> env) : env_(std::move(env)) {}
  PristineEnvironment(const PristineEnvironment&) = delete;
  PristineEnvironment& operator=(const PristineEnvironment&) = delete;

  // The environment, to the first caller only (nullptr to every later one and across threads).
  std::unique_ptr<Environment> take() {
    if (taken_.exchange(true)) return nullptr;
    return std::move(env_);
  }

 private:
  std::atomic<bool> taken_{false};
  std::unique_ptr<Environment> env_;
};

}  // namespace perfsage::engine::clips
