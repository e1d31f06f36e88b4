// The lifecycle of a planned action: stored plans, apply (new files, written atomically into an
// output folder, never over an input or any file perfsage did not write; applying again is a
// no-op), rollback (removes exactly what an apply wrote, refused when a file changed since), and
// the audit trail. Every apply and rollback, refused or not, leaves an audit row.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "perfsage/v1/action_plan.pb.h"
#include "store/action_store.h"
#include "store/database.h"

namespace perfsage::actions {

class ActionError : public std::runtime_error {
 public:
  enum class Kind { not_found, refused, input };
  ActionError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// Who acts and when (injected: tests and the daemon set them).
struct Actor {
  std::string name;                    // user@host
  std::function<std::string()> clock;  // ISO-8601 UTC
};

// Stores new plans (a plan already stored for its run and key keeps its id and is returned as
// stored) with an audit row each; returns them with their ids.
std::vector<perfsage::v1::PlannedAction> save_plans(store::Database& db,
                                                    std::vector<perfsage::v1::PlannedAction> plans,
                                                    const Actor& actor);
perfsage::v1::PlannedAction load_plan(store::Database& db, int64_t plan_id);

// The default output folder: perfsage-actions/plan-<id> beside the store file (next to the run's
// first input for an in-memory store).
std::filesystem::path default_out_dir(store::Database& db, const perfsage::v1::PlannedAction& plan);

struct ApplyOptions {
  std::filesystem::path out_dir;  // empty: default_out_dir
  bool allow_inexact = false;
};

perfsage::v1::ActionApply apply_action(store::Database& db, int64_t plan_id,
                                       const ApplyOptions& options, const Actor& actor);
perfsage::v1::ActionApply rollback_action(store::Database& db, int64_t apply_id,
                                          const Actor& actor);

// A stored verdict as the message (the change is after - before when both are known).
perfsage::v1::ActionVerdict verdict_message(const store::ActionVerdictRow& row);

perfsage::v1::ActionList list_actions(store::Database& db, std::optional<int64_t> run_id = {});
perfsage::v1::ActionAudit audit_trail(store::Database& db);

}  // namespace perfsage::actions
