// Evaluates one pack in a child process whose limits the OS enforces: RLIMIT_AS (the budget's
// memory on top of what the process already maps), RLIMIT_CPU (the time budget), no file
// writes (RLIMIT_FSIZE 0) and no core dumps. CLIPS checks its own budget only between rule
// firings and in its loops, so a cross-product join or a string that doubles in one expression
// is stopped here by the kernel; the parent also kills the child when the wall-clock budget
// (plus a grace period) has passed. The child gets the pack's facts by fork (copy-on-write, no
// serialisation) and returns a perfsage.v1.PackOutcome through a pipe. A crash, a signal or an
// overrun becomes that pack's status; the parent and the other packs are unaffected.
#pragma once

#include <string>

#include "engine/evaluator.h"

namespace perfsage::engine {

// Bytes the calling process maps now (VmSize): the base that a child's RLIMIT_AS is set on
// top of (under ASan it includes terabytes of shadow reservation).
size_t mapped_bytes();

PackEvaluation evaluate_pack_in_child(const CompiledPack& pack, const FactSource& source,
                                      double base_us, const std::string& device,
                                      const Budget& budget);

}  // namespace perfsage::engine
