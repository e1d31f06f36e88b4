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
// fully. Any error — config, selection, a pack that does not compile, hardware or patterns —
// fails the load: `serving` is then left as it was and the reply says why.
ipc::KnowledgeLoaded load_serving(const std::filesystem::path& config_file, uint64_t generation,
                                  Serving& serving);

using ProgressFn = std::function<void(std::string_view stage, double fraction)>;

// Analyses the job's inputs into the store (in a worker process). Never throws.
ipc::JobResult run_job(const ipc::RunJob& job, const Serving& serving, const ProgressFn& progress);

}  // namespace perfsage::daemon
