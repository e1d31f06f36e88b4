// The reuse-or-analyse rule, in one place: a stored run of the same inputs (same files, sizes
// and times) is reused when its analysis finished; one whose analysis did not finish (a crash,
// a kill) is analysed again. app::analyze applies it while it holds the inputs' lock; a front
// end that only needs a run id (`perfsage compare PATH`, `actions plan PATH`) asks
// reusable_run_of first and analyses only when it says none.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/job_queue.h"
#include "app/result.h"
#include "app/store_types.h"
#include "store/run_registry.h"

namespace perfsage::app {

// Whether a stored run can stand for its inputs without analysing them again.
bool reusable(const store::RunRecord& run);

// The stored, completely analysed run of the inputs `path` names, if any.
Result<std::optional<int64_t>> reusable_run_of(Database& db, const std::filesystem::path& path);

// Shared mode, when a daemon starts again: the jobs it was running when it stopped go back to
// the shared queue, where any daemon may take them, so what their workers had stored in this
// daemon's store is no job's result. Removes the runs of those inputs that `published` says no
// job completed with (the shared catalog holds the runs this daemon published); returns how
// many. A run this daemon completed earlier for the same inputs stays.
int drop_unfinished_runs(Database& db, const std::function<bool(int64_t run_id)>& published,
                         const std::vector<std::vector<std::string>>& job_inputs);

}  // namespace perfsage::app
