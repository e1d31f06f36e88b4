// A command's RUN argument: a run id ("42") or an input path, which names the stored run of
// those inputs (same files, sizes and times) and is analysed first, with the configured packs,
// when the store has none (through app::analyze, as `perfsage analyze --store` would).
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/result.h"
#include "app/store_types.h"
#include "cli/context.h"

namespace perfsage::cli {

// A run, plan or apply id: "42" -> 42; anything else ("0", "-1", "4x", a path) -> nullopt.
std::optional<int64_t> parse_id(const std::string& s);

class RunResolver {
 public:
  // `config` and `kb` select the packs an input path is analysed with; loaded once, when first
  // needed. Load warnings and analysis notices go to `err`.
  RunResolver(std::string config, std::vector<std::string> kb, std::ostream& err);

  app::Result<int64_t> resolve(app::Database& db, const std::string& target);

 private:
  std::string config_;
  std::vector<std::string> kb_;
  std::ostream& err_;
  std::optional<Context> ctx_;
  std::shared_ptr<const app::Knowledge> knowledge_;
};

}  // namespace perfsage::cli
