#include "app/stored_run.h"

#include "app/actions_service.h"

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

}  // namespace perfsage::app
