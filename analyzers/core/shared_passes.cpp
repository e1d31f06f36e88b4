#include "analyzers/core/shared_passes.h"

namespace perfsage::analyzers {

std::shared_ptr<const LaunchPass> SharedPasses::launch_pass(store::Database& db, int64_t run_id) {
  std::lock_guard lock(mutex_);
  std::shared_ptr<const LaunchPass> pass = launch_pass_;
  if (!pass) pass = std::make_shared<const LaunchPass>(read_launch_pass(db, run_id));
  // The last user holds the only reference: the pass is freed when it is done.
  launch_pass_ = --launch_pass_users_ > 0 ? pass : nullptr;
  return pass;
}

void SharedPasses::prepare_launch_pass(store::Database& db, int64_t run_id) {
  std::lock_guard lock(mutex_);
  if (!launch_pass_ && launch_pass_users_ > 0)
    launch_pass_ = std::make_shared<const LaunchPass>(read_launch_pass(db, run_id));
}

std::shared_ptr<const LaunchPass> launch_pass(SharedPasses* passes, store::Database& db,
                                              int64_t run_id) {
  if (passes) return passes->launch_pass(db, run_id);
  return std::make_shared<const LaunchPass>(read_launch_pass(db, run_id));
}

}  // namespace perfsage::analyzers
