// Analysis results: recommendations and per-pack evaluation outcomes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"

namespace perfsage::store {

struct Recommendation {
  std::string pack, pack_version, rule, severity, category, title, message;
  std::vector<std::string> subjects;
  std::string evidence_json = "{}";  // flat JSON object: name -> number or string
  std::optional<double> gain_us, gain_share;
  std::string action_json;  // JSON object {"kind": ..., ...} or empty
  std::vector<std::string> references;
};

struct PackResult {
  std::string pack, version, status;  // status: ok | error | budget_exceeded | skipped
  int64_t fired = 0;
  std::string error;
  double elapsed_ms = 0;
};

// Replaces the results of a run in one transaction.
void save_results(Database& db, int64_t run_id, const std::vector<PackResult>& packs,
                  const std::vector<Recommendation>& recs);
std::vector<Recommendation> load_recommendations(Database& db, int64_t run_id);
std::vector<PackResult> load_pack_results(Database& db, int64_t run_id);

}  // namespace perfsage::store
