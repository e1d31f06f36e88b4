// The reuse-or-analyse rule, in one place: a stored run of the same inputs (same files, sizes
// and times) is reused when its analysis finished; one whose analysis did not finish (a crash,
// a kill) is analysed again. app::analyze applies it while it holds the inputs' lock; a front
// end that only needs a run id (`perfsage compare PATH`, `actions plan PATH`) asks
// reusable_run_of first and analyses only when it says none.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "app/result.h"
#include "app/store_types.h"
#include "store/run_registry.h"

namespace perfsage::app {

// Whether a stored run can stand for its inputs without analysing them again.
bool reusable(const store::RunRecord& run);

// The stored, completely analysed run of the inputs `path` names, if any.
Result<std::optional<int64_t>> reusable_run_of(Database& db, const std::filesystem::path& path);

}  // namespace perfsage::app
