// Closing the loop: an applied action is judged on the next analysed run of its job (the first
// run of the job, after the plan's run, created at or after the apply, with pack results), for
// each finding it carried out, on the metric that finding targeted:
//   onnx_rewrite       the nodes the rewrite edits (the plan's preview) still in the model graph
//                      (an exact count); not_applied when the apply left the rewrite out
//   other kinds        the finding's own time evidence (unit us) while it still fires; else
//                      the time of the ops it names (subjects, the AOE op list; op statistics,
//                      per recorded step when both runs have steps); else the step time
// with a noise band of twice the largest step-to-step coefficient of variation of one rank
// (each rank's own steps, both runs; 0 for counts). Verdicts: helped, no_effect, regressed (the
// change left the band), unknown (measured on both runs, but a run has no rank with 3 or more
// recorded steps, or all steps last exactly the same time, so the noise is unknown: the change
// is stated, not judged), finding_gone (the
// finding no longer fires and nothing could be measured), not_measurable, not_applied.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "actions/lifecycle.h"
#include "perfsage/v1/action_plan.pb.h"
#include "perfsage/v1/finding.pb.h"
#include "store/database.h"

namespace perfsage::actions {

// The stored findings of a run (the service's stored report).
using FindingsOfRun = std::function<std::vector<perfsage::v1::Finding>(int64_t run_id)>;

// Judges every apply still in effect whose job has a next analysed run (only those whose next
// run is `after_run`, when given), stores the verdicts (replacing earlier ones for the same
// apply and finding) with an audit row per apply, and returns them.
std::vector<perfsage::v1::ActionVerdict> verify_actions(store::Database& db,
                                                        const FindingsOfRun& findings_of,
                                                        const Actor& actor,
                                                        std::optional<int64_t> after_run = {});

// The run that judges an apply: see above. nullopt while there is none.
std::optional<int64_t> next_run_of_job(store::Database& db, const std::string& job,
                                       int64_t plan_run, const std::string& applied_at);

}  // namespace perfsage::actions
