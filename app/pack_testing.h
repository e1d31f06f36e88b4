// `perfsage kb test`: a pack's test cases run against fixtures made the way real runs are —
// profiling dumps read by the collectors, SQL inserts of raw records — and then analysed by
// the real analyzers, so a test exercises the same facts a user's run gives.
#pragma once

#include <vector>

#include "app/knowledge.h"
#include "engine/kb/pack_tests.h"

namespace perfsage::app {

struct PackTestRun {
  std::vector<engine::TestReport> reports;  // one per pack tested
  size_t passed = 0, failed = 0;
};

// Tests every pack of the knowledge (valid or not: an invalid pack fails with its load error).
PackTestRun test_packs(const Knowledge& knowledge, const Limits& limits);

// The fixture hooks for one knowledge: collectors for dumps, analyzers for every fixture.
engine::PackTestOptions pack_test_options(const Knowledge& knowledge, const Limits& limits);

}  // namespace perfsage::app
