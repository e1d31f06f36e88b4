// Queries the fact types a run's packs need, once each, spread over parallel read connections.
#pragma once

#include <exception>
#include <map>
#include <string>
#include <vector>

#include "engine/facts/registry.h"
#include "store/database.h"

namespace perfsage::engine {

struct FactResult {
  std::vector<facts::SlotValues> facts;
  std::exception_ptr error;  // the query failed; rethrown to the pack that asks for it
  double ms = 0;
};

// Runs the queries of `types` for `run_id`. With threads > 1 and a store file (not ":memory:"),
// extra threads each open their own read-only connection and take the next unqueried type, so
// the full scans of big runs run side by side; the caller's connection takes part too.
std::map<std::string, FactResult> prefetch_facts(store::Database& db, int64_t run_id,
                                                 const std::vector<const facts::FactType*>& types,
                                                 unsigned threads);

}  // namespace perfsage::engine
