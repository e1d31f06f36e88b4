// One action kind: what it plans from the findings proposing it (and how their requests merge
// into one planned action), what a planned action writes, and the metric a finding it carried
// out is judged on when the job runs again. Each kind is one class in its own files
// (actions/<kind>.{h,cpp}), registered once in actions/kinds.cpp; plan, render and verify
// dispatch through the registry by the kind's name, which is the name of its message field in
// perfsage.v1.Action's `detail` oneof (the contract with packs: a pack's `action:` keys are that
// message's fields, engine/kb/action_map.cpp). docs/architecture.md, "Adding an action kind".
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actions/plan.h"
#include "perfsage/v1/action_plan.pb.h"
#include "perfsage/v1/finding.pb.h"
#include "store/database.h"

namespace perfsage::actions {

// What planning one kind sees: the run, and where it says why a finding cannot be planned.
struct PlanContext {
  store::Database& db;
  const PlanSource& source;
  std::vector<std::string>& notes;
  // An empty planned action of `kind` for the run (no steps, inputs or files yet).
  perfsage::v1::PlannedAction make(std::string_view kind) const;
};

// One finding of an applied action, judged on the job's next run.
struct VerifyContext {
  store::Database& db;
  int64_t before_run = 0, after_run = 0;
  const perfsage::v1::Finding* before = nullptr;  // the finding on the plan's run
  const perfsage::v1::Finding* after = nullptr;   // on the next run (nullptr: did not fire)
  std::vector<std::string> subjects;              // the step's subjects as op names
  int64_t before_steps = 0, after_steps = 0;      // recorded steps of all ranks per run
};

// A measurement of one metric on both runs.
struct Measure {
  std::string metric, unit;
  std::optional<double> before, after;
  bool count = false;  // exact counts have no noise
  std::string note;
};

class ActionKind {
 public:
  virtual ~ActionKind() = default;

  // The kind's name: its field in perfsage.v1.Action's `detail` oneof, and PlannedAction.kind.
  virtual std::string_view name() const = 0;

  // The planned actions for the run's findings of this kind (in finding order), with their
  // steps and the inputs they read; files, notes and usage are filled from render() later.
  // Default: one planned action carrying every finding.
  virtual std::vector<perfsage::v1::PlannedAction> plan(
      PlanContext& ctx, const std::vector<const perfsage::v1::Finding*>& findings) const;

  // The files `plan` writes into `out_dir` (named in the usage lines), deterministically.
  // Throws std::runtime_error naming what cannot be read.
  virtual Rendered render(store::Database& db, const perfsage::v1::PlannedAction& plan,
                          bool allow_inexact, const std::filesystem::path& out_dir) const = 0;

  // The metric one finding of an applied plan is judged on. Default: time_measure() over the
  // finding's subjects.
  virtual Measure measure(const VerifyContext& ctx, const perfsage::v1::PlannedStep& step) const;

  // Why the apply left this step out ("" when it carried it out): its verdict is not_applied.
  virtual std::string left_out(const perfsage::v1::PlannedStep& step, bool allow_inexact) const;
};

// The registry (actions/kinds.cpp): every kind, and one by name (nullptr when none).
const std::vector<const ActionKind*>& action_kinds();
const ActionKind* find_action_kind(std::string_view name);

// The kind a finding's action has: its `kind`, or the name of the `detail` field it fills.
std::string action_kind_of(const perfsage::v1::Action& action);

// Helpers for the kinds.
perfsage::v1::PlannedStep planned_step(const perfsage::v1::Finding& finding);
// A file a plan reads, with its size and SHA-256.
perfsage::v1::ActionFile plan_input(const std::string& path, const std::string& role);
const perfsage::v1::ActionFile* input_with_role(const perfsage::v1::PlannedAction& plan,
                                                const std::string& role);
std::vector<std::string> string_list(const google::protobuf::RepeatedPtrField<std::string>& r);

// The default metric (actions/verify.cpp): the finding's own time evidence while it still fires;
// else the time of `ops` (op names or types) from the op statistics, per recorded step when both
// runs have steps; else, for a finding gone, its evidence before; else the step time.
Measure time_measure(const VerifyContext& ctx, const std::vector<std::string>& ops);
// `sql_head` ending in a column compared with " IN (...)" over `names` (bound from ?2), with the
// run bound to ?1: its single real value, nullopt for no row or NULL.
std::optional<double> value_over_names(store::Database& db, const char* sql_head, int64_t run,
                                       const std::vector<std::string>& names);

}  // namespace perfsage::actions
