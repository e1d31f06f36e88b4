// The daemon's two uses of the analysis service (app/), both inside the forkserver process:
// loading the knowledge a reload asks for, and running one job in a worker.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string_view>

#include "daemon/ipc.pb.h"

namespace perfsage::app {
struct Knowledge;
struct Limits;
}  // namespace perfsage::app

namespace perfsage::daemon {

// What the forkserver serves: the knowledge and the `limits:` read with it.
struct Serving {
  std::shared_ptr<const app::Knowledge> knowledge;
  std::shared_ptr<const app::Limits> limits;
  uint64_t generation = 0;
};

// Reads the config file's kb: and limits: sections (none: defaults) and loads the knowledge
// fully. An error of the request — config, selection, a missing path, hardware or patterns —
// fails the load: `serving` is then left as it was and the reply says why. A broken pack (its
// YAML, a rule that does not compile) fails it only when that pack serves now; otherwise the
// load succeeds without it (the reply lists it with status "error" and says so in `error`): one
// bad community pack never keeps the daemon from starting.
ipc::KnowledgeLoaded load_serving(const std::filesystem::path& config_file, uint64_t generation,
                                  Serving& serving);

// A stage and the fraction of it done (negative: unknown), and the run the job is analysing
// once it is known (0 before).
using ProgressFn = std::function<void(std::string_view stage, double fraction, int64_t run_id)>;

// Analyses the job's inputs into the store (in a worker process). Never throws.
ipc::JobResult run_job(const ipc::RunJob& job, const Serving& serving, const ProgressFn& progress);

}  // namespace perfsage::daemon
