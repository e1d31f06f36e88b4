// Passes over a run's events that several analyzers read (the launch pass: launch_pass.h; the
// op groups: op_groups.h; the op task pass: op_task_pass.h), made once per analysis by the
// first analyzer that asks, on its own connection: they read only the ingested events, which no
// analyzer changes, so whichever connection makes one gets the same result. Dropped once every
// analyzer that declared it has taken it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "analyzers/core/launch_pass.h"
#include "analyzers/core/op_groups.h"
#include "analyzers/core/op_task_pass.h"
#include "store/database.h"

namespace perfsage::analyzers {

// Told when a thread starts and stops waiting for a pass another thread is making: the
// analyzers' schedule lets another analyzer use the core meanwhile.
struct WaitHook {
  std::function<void()> begin, end;
};

// One pass for `users` analyzers: made by the first caller (later callers wait for it), freed
// when the last user has taken it or said it will not.
template <class Pass>
class SharedPass {
 public:
  explicit SharedPass(int users) : users_(users) {}

  template <class Make>
  std::shared_ptr<const Pass> take(Make&& make, const WaitHook* hook = nullptr) {
    std::unique_lock lock = lock_waiting(hook);
    std::shared_ptr<const Pass> pass = pass_;
    if (!pass) pass = std::make_shared<const Pass>(make());
    // The last user holds the only reference: the pass is freed when it is done.
    pass_ = --users_ > 0 ? pass : nullptr;
    return pass;
  }
  // Makes the pass unless it is made, without taking it for a user.
  template <class Make>
  void prepare(Make&& make, const WaitHook* hook = nullptr) {
    std::unique_lock lock = lock_waiting(hook);
    if (!pass_ && users_ > 0) pass_ = std::make_shared<const Pass>(make());
  }
  // A user that will not take it after all.
  void skip() {
    std::lock_guard lock(mutex_);
    if (--users_ <= 0) pass_ = nullptr;
  }

 private:
  // The lock, telling `hook` while another thread holds it (making the pass).
  std::unique_lock<std::mutex> lock_waiting(const WaitHook* hook) {
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) {
      if (hook) hook->begin();
      lock.lock();
      if (hook) hook->end();
    }
    return lock;
  }

  std::mutex mutex_;
  std::shared_ptr<const Pass> pass_;
  int users_;
};

// The op groups with their latest texts, and the block-dim groups of the same pass.
struct OpGroups {
  std::vector<OpGroup> groups;
  std::vector<BlockDimGroup> block_dims;
};

class SharedPasses {
 public:
  // How many analyzers will ask for each pass.
  explicit SharedPasses(int launch_pass_users, int op_group_users = 0, int op_task_users = 0)
      : launch_pass_(launch_pass_users), op_groups_(op_group_users), op_tasks_(op_task_users) {}

  // The launch pass of `run_id`, made on `db` by the first caller; later callers wait for it.
  std::shared_ptr<const LaunchPass> launch_pass(store::Database& db, int64_t run_id);
  // Makes the pass on `db` unless it is made, without taking it for a user.
  void prepare_launch_pass(store::Database& db, int64_t run_id);
  // The op groups of `run_id` with their latest texts (group_op_tasks, fill_latest_texts).
  std::shared_ptr<const OpGroups> op_groups(store::Database& db, int64_t run_id);
  // The op task pass of `run_id`; skip_op_tasks for a user that does not need it after all.
  std::shared_ptr<const OpTaskPass> op_tasks(store::Database& db, int64_t run_id);
  void skip_op_tasks() { op_tasks_.skip(); }
  // Told whenever a caller waits for a pass another caller is making; set before any caller.
  void on_wait(WaitHook hook) { wait_hook_ = std::move(hook); }

 private:
  const WaitHook* hook() const { return wait_hook_.begin ? &wait_hook_ : nullptr; }

  WaitHook wait_hook_;
  SharedPass<LaunchPass> launch_pass_;
  SharedPass<OpGroups> op_groups_;
  SharedPass<OpTaskPass> op_tasks_;
};

// Each pass from `passes`, or made for this caller alone when there are none.
std::shared_ptr<const LaunchPass> launch_pass(SharedPasses* passes, store::Database& db,
                                              int64_t run_id);
std::shared_ptr<const OpGroups> op_groups(SharedPasses* passes, store::Database& db,
                                          int64_t run_id);
std::shared_ptr<const OpTaskPass> op_task_pass(SharedPasses* passes, store::Database& db,
                                               int64_t run_id);

}  // namespace perfsage::analyzers
