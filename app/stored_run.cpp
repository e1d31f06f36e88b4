#include "app/stored_run.h"

#include "app/actions_service.h"
#include "app/job_identity.h"

namespace perfsage::app {

bool reusable(const store::RunRecord& run) {
  return run.status == store::kRunAnalyzed;
}

Result<std::optional<int64_t>> reusable_run_of(Database& db, const std::filesystem::path& path) {
  auto stored = stored_run_of(db, path);
  if (!stored) return stored.error();
  if (!*stored) return std::optional<int64_t>();
  auto run = store::load_run(db, **stored);
  if (run && reusable(*run)) return *stored;
  return std::optional<int64_t>();
}

int drop_unfinished_runs(Database& db, const std::function<bool(int64_t run_id)>& published,
                         const std::vector<std::vector<std::string>>& job_inputs) {
  int dropped = 0;
  for (const auto& run : store::list_runs(db)) {
    bool held = false;
    for (const auto& inputs : job_inputs) {
      std::vector<std::string> normal;
      for (const auto& in : inputs) normal.push_back(normal_input(in).string());
      held = held || normal == run.inputs;
    }
    if (!held || published(run.id)) continue;
    store::delete_run(db, run.id);
    ++dropped;
  }
  return dropped;
}

}  // namespace perfsage::app
