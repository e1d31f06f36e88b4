// Passes over a run's events that several analyzers read (the launch pass: launch_pass.h),
// made once per analysis by the first analyzer that asks, on its own connection: they read only
// the ingested events, which no analyzer changes, so whichever connection makes one gets the
// same result. Dropped once every analyzer that declared it has taken it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "analyzers/core/launch_pass.h"
#include "store/database.h"

namespace perfsage::analyzers {

class SharedPasses {
 public:
  // `launch_pass_users`: how many analyzers will ask for the launch pass.
  explicit SharedPasses(int launch_pass_users) : launch_pass_users_(launch_pass_users) {}

  // The launch pass of `run_id`, made on `db` by the first caller; later callers wait for it.
  std::shared_ptr<const LaunchPass> launch_pass(store::Database& db, int64_t run_id);
  // Makes the pass on `db` unless it is made, without taking it for a user.
  void prepare_launch_pass(store::Database& db, int64_t run_id);

 private:
  std::mutex mutex_;
  std::shared_ptr<const LaunchPass> launch_pass_;
  int launch_pass_users_;
};

// The launch pass from `passes`, or made for this caller alone when there are none.
std::shared_ptr<const LaunchPass> launch_pass(SharedPasses* passes, store::Database& db,
                                              int64_t run_id);

}  // namespace perfsage::analyzers
