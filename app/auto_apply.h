// The auto-apply policy (the daemon's daemon.auto_apply_actions): after a run is analysed, its
// actions are planned and the exact ones applied; a plan whose rewrite changes outputs waits
// for a person. Applying only writes new files, under `dir`/plan-<id>.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "app/store_types.h"

namespace perfsage::app {

struct AutoApplied {
  int64_t applied = 0;             // plans applied now (not those applied before)
  std::vector<std::string> notes;  // why a plan was not applied; never the job's failure
};

// Plans run `run_id`'s actions as "<user> (perfsaged, automatic)" and applies the exact ones.
AutoApplied apply_exact_actions(Database& db, int64_t run_id, const std::filesystem::path& dir);

}  // namespace perfsage::app
