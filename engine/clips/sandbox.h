// The sandbox applied to every environment that runs pack code: only functions on an
// allow list stay defined. Everything that touches the OS or files (system, open, remove,
// rename, dribble-on, save, bsave, ...), loads or builds code (load, batch, bload, build,
// eval), blocks on input (read, readline, get-char), exits the process (exit), changes
// engine settings, loops without a bound (while, loop-for-count) or is nondeterministic
// (random, time) is undefined before a pack's constructs load, so using it is a parse error.
#pragma once

#include <string>
#include <string_view>

namespace perfsage::engine::clips {

// Undefines every function not on the allow list in the raw environment.
void apply_sandbox(void* env);

// True when `name` is a function packs may call.
bool sandbox_allows(std::string_view name);

// Why a function is unavailable, for error messages ("touches the OS or files", ...).
std::string sandbox_reason(std::string_view name);

}  // namespace perfsage::engine::clips
