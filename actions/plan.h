// Planning tuning actions from a run's findings, and rendering what a planned action writes.
// One planned action per kind, carrying every finding of that kind (one env file, one fusion
// switch file, one AOE list, one suggestions file), and one per ONNX model for onnx_rewrite.
// Rendering is deterministic: the plan previews exactly what an apply of the same inputs writes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "perfsage/v1/action_plan.pb.h"
#include "perfsage/v1/finding.pb.h"
#include "store/database.h"

namespace perfsage::actions {

struct PlanSource {
  int64_t run_id = 0;
  std::string job;
  std::string created;  // the plan's time (the caller's clock)
};

struct PlanResult {
  std::vector<perfsage::v1::PlannedAction> plans;
  std::vector<std::string> notes;  // findings whose action cannot be planned, and why
};

// `only`: finding ids to plan for (empty: every finding that proposes an action). Throws
// std::runtime_error when an input the plan reads cannot be read (naming it).
PlanResult plan_actions(store::Database& db, const PlanSource& source,
                        const std::vector<perfsage::v1::Finding>& findings,
                        const std::vector<std::string>& only = {});

// What makes two plans of one run the same plan (kind, target, findings).
std::string plan_key(const perfsage::v1::PlannedAction& plan);

struct RenderedFile {
  std::string name;  // relative to the output folder
  std::string role;
  std::string content;
  std::filesystem::path link_to;  // non-empty: a second name of this existing file, not content
};

// What an onnx_rewrite does for one finding.
struct RewriteOutcome {
  std::string state;               // applied | inexact (left out: not allowed) | refused
  std::vector<std::string> nodes;  // the nodes it edits
};

struct Rendered {
  std::vector<RenderedFile> files;
  std::vector<std::string> notes, usage;
  bool has_inexact = false;  // rewrites that change outputs were found (applied only if allowed)
  std::map<std::string, RewriteOutcome> rewrites;  // onnx_rewrite, by finding id
};

// The files `plan` writes into `out_dir` (used in the usage lines), from its steps, its inputs
// and the run's stored data: its kind's render() (actions/kind.h). Throws std::runtime_error
// naming what cannot be read, or an unknown kind.
Rendered render_action(store::Database& db, const perfsage::v1::PlannedAction& plan,
                       bool allow_inexact, const std::filesystem::path& out_dir);

}  // namespace perfsage::actions
