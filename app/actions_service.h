// The tuning-action service both front ends call (docs/actions.md): plan a run's actions,
// apply, roll back, list, read the audit trail, and judge applied actions on the job's next
// run. Values or typed errors; nothing here prints or exits.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "actions/lifecycle.h"
#include "app/analysis.h"
#include "app/result.h"
#include "perfsage/v1/action_plan.pb.h"
#include "store/database.h"

namespace perfsage::app {

// $USER@hostname, with the given clock.
actions::Actor default_actor(Clock clock = system_clock_iso8601);

struct PlanOutcome {
  int64_t run_id = 0;
  std::vector<perfsage::v1::PlannedAction> plans;  // stored, with ids
  std::vector<std::string> notes;                  // findings that cannot be planned, and why
};

// The stored run whose inputs are exactly `path` (same files, sizes and times), if any.
Result<std::optional<int64_t>> stored_run_of(store::Database& db,
                                             const std::filesystem::path& path);

// Plans the actions the run's stored findings propose (only `findings`, when given), stores
// them (planning twice gives the same plans) and returns them.
Result<PlanOutcome> plan_run_actions(store::Database& db, int64_t run_id,
                                     const std::vector<std::string>& findings,
                                     const actions::Actor& actor);

Result<perfsage::v1::ActionApply> apply_planned_action(store::Database& db, int64_t plan_id,
                                                       const actions::ApplyOptions& options,
                                                       const actions::Actor& actor);
Result<perfsage::v1::ActionApply> roll_back_action(store::Database& db, int64_t apply_id,
                                                   const actions::Actor& actor);
Result<perfsage::v1::ActionList> list_planned_actions(store::Database& db,
                                                      std::optional<int64_t> run_id = {});
Result<perfsage::v1::ActionAudit> action_audit(store::Database& db);

// Judges applied actions whose job has a next analysed run (only those judged by `after_run`,
// when given); stores and returns the verdicts. The analysis of a run calls it with the run.
Result<std::vector<perfsage::v1::ActionVerdict>> verify_applied_actions(
    store::Database& db, const actions::Actor& actor, std::optional<int64_t> after_run = {});

}  // namespace perfsage::app
