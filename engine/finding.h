// Findings: what a rule concluded, as the typed perfsage.v1.Finding. Built from the
// recommendation facts a compiled pack asserts; ranked; identified by a stable id.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/clips/environment.h"
#include "engine/kb/compiler.h"
#include "perfsage/v1/finding.pb.h"

namespace perfsage::engine {

// Stable across runs and machines: 16 hex digits of FNV-1a 64 over pack, rule and subjects.
std::string finding_id(const std::string& pack, const std::string& rule,
                       const std::vector<std::string>& subjects);

// "critical" ... "info" (any case) -> enum; SEVERITY_UNSPECIFIED when it is none of them.
perfsage::v1::Severity parse_severity(std::string_view name);
const char* severity_name(perfsage::v1::Severity s);  // "high", ...
// Severity from a gain share: >= 5 % high, >= 3 % medium, else low.
perfsage::v1::Severity severity_from_share(double share);

// The finding a recommendation fact of `pack` describes. `base_us` is the denominator of
// default shares (0 = unknown). Throws EngineError, naming the rule's YAML line, when its gain,
// share or an evidence number is not finite.
perfsage::v1::Finding make_finding(const CompiledPack& pack, const clips::Fact& fact,
                                   double base_us);

// What of a finding is not a finite number ("gain is infinite", "evidence x is not a number
// (nan)"), or "" when all its numbers are finite. make_finding refuses such findings;
// evaluate_pack_in_child checks what a child process sends back with this too.
std::string non_finite_number(const perfsage::v1::Finding& finding);

// Sorts by severity, then estimated gain (descending), then id, and removes repeats of the same
// id. Returns how many repeats were removed.
size_t rank_findings(std::vector<perfsage::v1::Finding>& findings);

}  // namespace perfsage::engine
