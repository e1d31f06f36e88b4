#include "app/auto_apply.h"

#include "app/actions_service.h"

namespace perfsage::app {

AutoApplied apply_exact_actions(Database& db, int64_t run_id, const std::filesystem::path& dir) {
  AutoApplied out;
  auto actor = default_actor();
  actor.name += " (perfsaged, automatic)";
  auto planned = plan_run_actions(db, run_id, {}, actor);
  if (!planned) {
    out.notes.push_back("planning failed: " + planned.error().message);
    return out;
  }
  for (const auto& plan : planned->plans) {
    std::string which = "plan " + std::to_string(plan.id()) + " (" + plan.kind() + ")";
    if (plan.has_inexact()) {
      out.notes.push_back(which + ": changes outputs; apply it by hand with allow_inexact");
      continue;
    }
    auto applied = apply_planned_action(
        db, plan.id(), {dir / ("plan-" + std::to_string(plan.id())), false}, actor);
    if (!applied) {
      out.notes.push_back(which + ": " + applied.error().message);
    } else if (!applied->already_applied()) {
      ++out.applied;
    }
  }
  return out;
}

}  // namespace perfsage::app
