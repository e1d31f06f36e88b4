// Replacements for CLIPS's integer `div` and `mod`: the originals divide with the CPU's idiv,
// so (div -9223372036854775808 -1) raises SIGFPE and kills the whole process. These check the
// divisor and the one overflowing quotient and turn both into an evaluation error, which
// stops the rule like any other CLIPS error.
#pragma once

namespace perfsage::engine::clips {

void define_checked_math(void* env);

}  // namespace perfsage::engine::clips
