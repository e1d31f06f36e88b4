// Analysis results: findings and per-pack evaluation outcomes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"

namespace perfsage::store {

// A finding as stored: the columns history and actions look up by, and the whole finding as
// a serialized perfsage.v1.Finding (the store does not interpret it).
struct StoredFinding {
  std::string id, pack, rule;
  int severity = 0;  // perfsage.v1.Severity number
  double gain_us = 0, gain_share = 0;
  std::string payload;
};

struct PackResult {
  std::string pack, version, status;  // status: ok | error | budget_exceeded | skipped
  int64_t fired = 0;
  std::string error;
  double elapsed_ms = 0;
  std::string source;     // builtin | community | system | user | project
  bool isolated = false;  // evaluated in a child process under OS limits
};

// Replaces the results of a run in one transaction; findings keep their order (the ranking).
void save_results(Database& db, int64_t run_id, const std::vector<PackResult>& packs,
                  const std::vector<StoredFinding>& findings);
std::vector<StoredFinding> load_findings(Database& db, int64_t run_id);
std::vector<PackResult> load_pack_results(Database& db, int64_t run_id);

}  // namespace perfsage::store
