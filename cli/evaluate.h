// The CLI's use of the engine: select and load packs, evaluate them over a run, store results.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/evaluator.h"
#include "store/database.h"

namespace perfsage::cli {

struct KbRequest {
  std::vector<std::string> names;  // --kb selections (names or globs); empty = all enabled
  std::string config_path;         // --config FILE
};

// Loads the selected packs; prints load messages to `err`. nullopt when the selection or a
// config is unusable (bad usage).
std::optional<engine::PackSet> load_packs(const KbRequest& req, std::ostream& err);

// Evaluates the packs over the run and replaces the run's stored results.
void evaluate_and_store(store::Database& db, int64_t run_id, const engine::PackSet& packs);

}  // namespace perfsage::cli
