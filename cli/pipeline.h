// The steps shared by `analyze` and `ingest`: open a store, collect inputs into one run, analyse.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/common/collector.h"
#include "store/database.h"
#include "store/run_registry.h"

namespace perfsage::cli {

// Current time as ISO-8601 UTC; injectable so tests get stable output.
using Clock = std::function<std::string()>;
std::string system_clock_iso8601();

// A store that is either the user's file or a temporary file removed on destruction.
class StoreHandle {
 public:
  explicit StoreHandle(const std::string& path_or_empty);
  ~StoreHandle();
  StoreHandle(const StoreHandle&) = delete;
  StoreHandle& operator=(const StoreHandle&) = delete;
  store::Database& db() { return *db_; }

 private:
  std::filesystem::path temp_dir_;
  std::unique_ptr<store::Database> db_;
};

struct IngestRequest {
  std::vector<std::filesystem::path> inputs;
  std::string job;  // empty: derived from the first input's name
  collectors::Mode mode = collectors::Mode::strict;
  bool reuse_existing = true;  // an identical input set already stored is not ingested again
};

struct IngestOutcome {
  int64_t run_id = 0;
  bool reused = false;
  store::RunSummary summary;
};

// Collects the inputs as one run and runs the analyzers. Throws collectors::ParseError when an
// input cannot be read; nothing of the failed run is stored then.
IngestOutcome ingest_and_analyze(store::Database& db, const IngestRequest& req, const Clock& clock);

}  // namespace perfsage::cli
