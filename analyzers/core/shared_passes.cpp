#include "analyzers/core/shared_passes.h"

namespace perfsage::analyzers {
namespace {

OpGroups read_op_groups(store::Database& db, int64_t run_id) {
  OpGroups out;
  out.groups = group_op_tasks(db, run_id, &out.block_dims);
  fill_latest_texts(db, out.groups);
  return out;
}

}  // namespace

std::shared_ptr<const LaunchPass> SharedPasses::launch_pass(store::Database& db, int64_t run_id) {
  return launch_pass_.take([&] { return read_launch_pass(db, run_id); }, hook());
}

void SharedPasses::prepare_launch_pass(store::Database& db, int64_t run_id) {
  launch_pass_.prepare([&] { return read_launch_pass(db, run_id); }, hook());
}

std::shared_ptr<const OpGroups> SharedPasses::op_groups(store::Database& db, int64_t run_id) {
  return op_groups_.take([&] { return read_op_groups(db, run_id); }, hook());
}

std::shared_ptr<const OpTaskPass> SharedPasses::op_tasks(store::Database& db, int64_t run_id) {
  return op_tasks_.take([&] { return read_op_task_pass(db, run_id); }, hook());
}

std::shared_ptr<const LaunchPass> launch_pass(SharedPasses* passes, store::Database& db,
                                              int64_t run_id) {
  if (passes) return passes->launch_pass(db, run_id);
  return std::make_shared<const LaunchPass>(read_launch_pass(db, run_id));
}

std::shared_ptr<const OpGroups> op_groups(SharedPasses* passes, store::Database& db,
                                          int64_t run_id) {
  if (passes) return passes->op_groups(db, run_id);
  return std::make_shared<const OpGroups>(read_op_groups(db, run_id));
}

std::shared_ptr<const OpTaskPass> op_task_pass(SharedPasses* passes, store::Database& db,
                                               int64_t run_id) {
  if (passes) return passes->op_tasks(db, run_id);
  return std::make_shared<const OpTaskPass>(read_op_task_pass(db, run_id));
}

}  // namespace perfsage::analyzers
