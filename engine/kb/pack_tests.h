// promtool-style tests for a pack: tests/*.yaml next to pack.yaml.
//
//   cases:
//     - name: cast to UINT64 on AI CPU fires
//       params: {min_task_us: 20}            # optional overrides
//       facts:                               # inline facts per fact type...
//         run: [{device: ascend, has_device: yes}]
//         op:  [{name: trans_Cast_5, type: Cast, core_type: AI_CPU, max_us: 198}]
//       fixture: fixtures/run.sql            # ...or SQL inserting raw records as run 1, or a
//                                            # profiling dump; the real analyzers then run
//       expect:                              # [] = nothing may fire
//         - rule: aicpu_op
//           subjects: [trans_Cast_5]
//           severity: low
//           message_contains: UINT64
//           evidence: {count: 5}
//
//   TestReport r = run_pack_tests(loaded_pack, options);   // perfsage kb test [PACK]
//
// Coverage: every enabled rule needs a passing case where it fires, and a passing case
// where it stays silent although facts of every type its `when` matches are present.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/clips/budget.h"
#include "engine/facts/registry.h"
#include "engine/kb/pack.h"

namespace perfsage::store {
class Database;
}

namespace perfsage::engine {

struct CaseResult {
  std::string file, name;
  bool passed = false;
  std::vector<std::string> failures;
  std::vector<std::string> fired;  // rule ids that fired
};

struct RuleCoverage {
  std::string rule;
  int firing_cases = 0, quiet_cases = 0;
};

struct TestReport {
  std::string pack;
  std::vector<CaseResult> cases;
  std::vector<RuleCoverage> coverage;
  std::vector<std::string> problems;  // load errors, missing coverage
  bool ok() const;
  std::string str() const;  // human-readable summary
};

struct PackTestOptions {
  Budget budget;
  // Fixtures become a store the way real runs do: `ingest` reads a profiling dump (a file or
  // folder inside the pack) into the store as run 1; `analyze` runs the analyzers over run 1
  // after an SQL fixture's inserts or after `ingest`. Both are given by the caller (app/): the
  // engine knows neither collectors nor analyzers. Without `ingest`, dump fixtures fail.
  std::function<void(store::Database&, const std::filesystem::path&)> ingest;
  std::function<void(store::Database&, int64_t run_id)> analyze;
  // The fact types packs may use (from the analyzers, given by the application). Required.
  std::shared_ptr<const facts::Catalog> catalog;
};

TestReport run_pack_tests(const Pack& pack, const PackTestOptions& options = {});

// Limits on fixtures, which are as untrusted as the pack: a fixture lies inside the pack's
// folder, an SQL fixture is at most 1 MiB, may only insert rows into existing tables (no
// ATTACH, PRAGMA, schema changes, recursive CTEs or extensions) and runs for at most 5 s.
constexpr size_t kMaxFixtureSqlBytes = 1 << 20;

}  // namespace perfsage::engine
