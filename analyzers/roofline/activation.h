// Activation functions executed as chains of primitive ops (Mish = x * tanh(softplus(x)) as
// Softplus -> Tanh -> Mul; SiLU as Sigmoid -> Mul; erf-GELU as Div -> Erf -> Add -> Mul -> Mul)
// and costly native activation ops, found in the device op sequence (Ascend op tasks per
// stream), the CPU-op sequence of Kineto traces (per thread) and model graphs. Writes
// activation_patterns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analyzers/core/launch_pass.h"
#include "analyzers/core/op_task_pass.h"
#include "store/database.h"

namespace perfsage::analyzers::roofline {

struct ActivationPattern {
  std::string name;                // mish, silu, gelu_erf
  std::vector<std::string> chain;  // normalised op types in execution order
};
const std::vector<ActivationPattern>& activation_patterns();

// "aten::softplus" / "Softplus" / "SoftplusV2" -> "softplus"; "Mul23" names are not types.
std::string normalize_op_type(const std::string& type);

// Finds chains in a sequence of (normalised type) ops; returns start indices of matches.
std::vector<size_t> find_chains(const std::vector<std::string>& types, const ActivationPattern& p);

void compute_activation_patterns(store::Database& db, int64_t run_id);
// The same over a launch pass shared with the GPU roofline and an op task pass shared with the
// patterns analyzer (let go once the Ascend tasks are taken from it).
void compute_activation_patterns(store::Database& db, int64_t run_id, const LaunchPass& pass,
                                 std::shared_ptr<const OpTaskPass> tasks);

}  // namespace perfsage::analyzers::roofline
