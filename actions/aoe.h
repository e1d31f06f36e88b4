// The aoe action kind: the operators worth tuning with the Ascend Optimization Engine, ranked
// by the gain their findings estimate, the tune-ops file (msprof-analyze's form,
// {"tune_ops_name": [...]}), and the AOE command lines for subgraph tuning (--job_type=1) and
// operator tuning (--job_type=2) for the run's framework (formats.md §12).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"

namespace perfsage::actions {

// One finding's request: op names or op types, and the finding's estimated gain.
struct AoeRequest {
  std::vector<std::string> ops;
  int job_type = 0;  // 1 subgraph, 2 operator, 0 both
  double gain_us = 0;
  std::string reason;  // the finding's title
  std::string finding;
};

struct AoeOp {
  std::string name, type, core_type;
  int64_t count = 0;
  double total_us = 0;
  double gain_us = 0;  // the findings' estimated gain, split over their ops by time, at most
                       // the op's own time
  std::vector<std::string> reasons, findings;
};

struct AoePlan {
  std::vector<AoeOp> ops;          // most gain first (then most time)
  std::vector<std::string> notes;  // ops left out and why
  bool subgraph = false, operators = false;
  std::vector<std::string> findings;
};

// Op names as packs hand them over: items that may each hold several names joined with ',' or
// ';' (a templated list), trimmed.
std::vector<std::string> split_op_names(const std::vector<std::string>& items);

// Looks the requested ops up in the run's op statistics (a name first, else every op of that
// type). Ops AOE cannot tune (AI CPU, communication, DMA) are left out with a note.
AoePlan plan_aoe(store::Database& db, int64_t run_id, const std::vector<AoeRequest>& requests);

// {"tune_ops_name": [...]} for aoe --tune_ops_file.
std::string render_tune_ops_file(const AoePlan& plan);

// Where and how the user runs AOE.
struct AoeTarget {
  std::string framework;             // the run's framework (pytorch-npu, msprof, ge, onnx, ...)
  std::optional<std::string> model;  // an offline model the run read (ONNX), when there is one
};
AoeTarget aoe_target(store::Database& db, int64_t run_id);

// The command lines, subgraph tuning first (AOE's documented order), with `tune_ops_file` the
// path the tune-ops file is written to.
std::vector<std::string> aoe_commands(const AoePlan& plan, const AoeTarget& target,
                                      const std::string& tune_ops_file);

class ActionKind;
// The aoe action kind (actions/kind.h): the tune-ops file and the AOE command lines.
const ActionKind& aoe_kind();

}  // namespace perfsage::actions
