// Evaluates a pack set over one run of the store.
//
//   auto ev = perfsage::engine::evaluate(db, run_id, loaded.set, options);
//   // ev.packs: one status per pack; ev.findings: ranked perfsage.v1.Finding messages
//
// Each pack runs in a fresh sandboxed CLIPS environment holding only the fact types it
// lists in `uses`, under the budget; a pack that fails or exceeds its budget gets status
// error / budget_exceeded and the others still run. Packs that are not trusted (everything
// outside the built-in folder) run in a child process whose memory and CPU time the OS
// limits (pack_child.h), so a pack that matches without end or allocates without bound is
// stopped even between CLIPS's own budget checks. Findings are ranked by severity, then
// estimated gain, with repeats (same id) removed.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/clips/budget.h"
#include "engine/facts/registry.h"
#include "engine/kb/selection.h"
#include "perfsage/v1/finding.pb.h"
#include "store/database.h"
#include "store/results.h"

namespace perfsage::engine {

struct EvaluationOptions {
  Budget budget;
  bool isolate_untrusted = true;  // untrusted packs in a child process under OS limits
  bool isolate_all = false;       // every pack there, built-in ones too
  unsigned fact_threads = 2;      // connections querying fact types side by side
  // Called after each pack with the packs evaluated so far and their number (progress).
  std::function<void(size_t done, size_t total)> on_pack;
};

struct Evaluation {
  std::vector<store::PackResult> packs;
  std::vector<perfsage::v1::Finding> findings;  // ranked
};

Evaluation evaluate(store::Database& db, int64_t run_id, const PackSet& packs,
                    const EvaluationOptions& options = {});

// Frees the packs' pristine environments (clips/pristine_environment.h) this process has not
// used and returns the memory to the system: for a run so big that the time they save (tens of
// ms) is worth less than the memory they hold through its ingest (tens of MB). Evaluation then
// builds each pack's environment itself, with the same findings.
void release_pristine_environments(const PackSet& packs);

// Where facts come from: the store for a run, or inline facts in pack tests.
using FactSource = std::function<std::vector<facts::SlotValues>(const facts::FactType&)>;

// Evaluates one compiled pack in this process. `base_us` is the denominator of default
// shares (0 = unknown); `device` the run's device symbol for applies_to.
struct PackEvaluation {
  store::PackResult result;
  std::vector<perfsage::v1::Finding> findings;
  // Findings dropped because the same rule already reported the same subjects (a rule that
  // fires once per matching list item, say); pack tests treat any as a defect.
  int64_t duplicates = 0;
};
PackEvaluation evaluate_pack(const CompiledPack& pack, const FactSource& source, double base_us,
                             const std::string& device, const Budget& budget = {});

// Whether the pack's applies_to admits the device (a pack without applies_to, or a run of
// unknown device, is always evaluated).
bool applies_to_device(const CompiledPack& pack, const std::string& device);

}  // namespace perfsage::engine
