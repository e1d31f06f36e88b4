// promtool-style tests for a pack: tests/*.yaml next to pack.yaml.
//
//   cases:
//     - name: cast to UINT64 on AI CPU fires
//       params: {min_task_us: 20}            # optional overrides
//       facts:                               # inline facts per fact type...
//         run: [{device: ascend, has_device: yes}]
//         op:  [{name: trans_Cast_5, type: Cast, core_type: AI_CPU, max_us: 198}]
//       fixture: fixtures/run.sql            # ...or SQL run against an empty store (run id 1)
//       expect:                              # [] = nothing may fire
//         - rule: aicpu_op
//           subjects: [trans_Cast_5]
//           severity: low
//           message_contains: UINT64
//           evidence: {count: 5}
//
//   TestReport r = run_pack_tests(loaded_pack);   // perfsage kb test [PACK]
//
// Coverage: every enabled rule needs a passing case where it fires, and a passing case
// where it stays silent although facts of every type its `when` matches are present.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engine/clips/budget.h"
#include "engine/kb/pack.h"

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

TestReport run_pack_tests(const Pack& pack, const Budget& budget = {});

}  // namespace perfsage::engine
