// A pack's run-time error as its author can act on it. CLIPS reports an error while a rule
// matches or fires as several lines of its own ("[PRNTUTIL7] Attempt to divide by zero in /
// function." then "[PRCCODE4] Execution halted during the actions of defrule heavy_op."); this
// turns that into one line naming the pack file, the rule, the YAML key and its line:
//
//   packs/mine/pack.yaml:31:11: rule heavy_op, gain: divide by zero in (/ ...) [PRNTUTIL7]
//
// The key is found from what CLIPS says: a pattern of the join network is the rule's `when`, a
// recommendation slot refused is that output (gain, share), and a function that failed in the
// actions is the first of gain, share and evidence whose code calls it.
#pragma once

#include <string>

#include "engine/kb/pack.h"

namespace perfsage::engine {

// `clips_text` is the error output CLIPS wrote (werror); never empty in the result.
std::string describe_run_error(const Pack& pack, const std::string& clips_text);

}  // namespace perfsage::engine
