#include "engine/evaluator.h"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "engine/clips/environment.h"
#include "engine/clips/pristine_environment.h"
#include "engine/error.h"
#include "engine/fact_prefetch.h"
#include "engine/finding.h"
#include "engine/pack_child.h"
#include "engine/run_error.h"

namespace perfsage::engine {

bool applies_to_device(const CompiledPack& pack, const std::string& device) {
  const auto& applies = pack.pack.applies_to;
  return applies.empty() || device == "unknown" || device.empty() ||
         std::find(applies.begin(), applies.end(), device) != applies.end();
}

namespace {

// The pack's pristine environment when this process has not used it yet, else a new one with
// the constructs loaded: either way an environment no evaluation has touched.
std::unique_ptr<clips::Environment> untouched_environment(const CompiledPack& pack) {
  if (auto env = pack.pristine ? pack.pristine->take() : nullptr) {
    env->follow_process_isolation();
    return env;
  }
  auto env = std::make_unique<clips::Environment>();
  auto errors = env->load(pack.constructs);
  if (!errors.empty()) throw EngineError("constructs did not load: " + errors[0].text);
  return env;
}

}  // namespace

PackEvaluation evaluate_pack(const CompiledPack& pack, const FactSource& source, double base_us,
                             const std::string& device, const Budget& budget) {
  PackEvaluation out;
  auto start = std::chrono::steady_clock::now();
  auto& res = out.result;
  res.pack = pack.pack.name;
  res.version = pack.pack.version;
  res.source = pack.pack.source;
  auto finish = [&] {
    res.elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  if (!pack.valid) {
    res.status = "error";
    res.error = pack.error.empty() ? "pack did not compile" : pack.error;
    finish();
    return out;
  }
  if (!applies_to_device(pack, device)) {
    res.status = "skipped";
    res.error = "applies to other devices than '" + device + "'";
    finish();
    return out;
  }
  try {
    auto env_owner = untouched_environment(pack);
    clips::Environment& env = *env_owner;
    env.reset();
    // Fact queries are the host's trusted SQL, not pack code: they run before the pack's budget
    // starts, so a big run's query time is never charged to (or aborts) the pack.
    std::vector<std::pair<void*, std::vector<facts::SlotValues>>> batches;
    for (const auto& name : pack.pack.uses)
      batches.emplace_back(env.find_template(name), source(*pack.fact_type(name)));
    env.start_budget(budget);
    env.clear_messages();
    bool exhausted = false;
    for (const auto& [tmpl, facts_of_type] : batches) {
      for (const auto& fact : facts_of_type) {
        env.assert_fact(tmpl, fact);
        if (env.budget_exhausted()) {
          exhausted = true;
          break;
        }
        if (!env.messages().empty() && !env.errors_text().empty()) break;  // a `when` failed
      }
      if (exhausted || !env.errors_text().empty()) break;
    }
    clips::RunOutcome outcome;
    // Patterns are matched while facts are asserted: an error in a `when` test shows here.
    const std::string assert_errors = env.errors_text();
    if (!assert_errors.empty()) {
      outcome.status = clips::RunStatus::error;
      outcome.detail = assert_errors;
    } else if (exhausted) {
      outcome.status = clips::RunStatus::time_exceeded;
      outcome.detail = env.budget_detail() + " while asserting facts";
    } else {
      outcome = env.run();
    }
    res.fired = outcome.fired;
    if (outcome.status == clips::RunStatus::error) {
      res.status = "error";
      res.error = describe_run_error(pack.pack, outcome.detail);
    } else if (outcome.status != clips::RunStatus::ok) {
      res.status = "budget_exceeded";
      res.error = outcome.detail;
    } else {
      res.status = "ok";
      for (const auto& f : env.facts("recommendation"))
        out.findings.push_back(make_finding(pack, f, base_us));
      out.duplicates = static_cast<int64_t>(rank_findings(out.findings));
    }
  } catch (const std::bad_alloc&) {
    res.status = "budget_exceeded";
    res.error = "memory limit reached";
    out.findings.clear();
  } catch (const std::exception& e) {
    res.status = "error";
    res.error = e.what();
    out.findings.clear();
  }
  finish();
  return out;
}

void release_pristine_environments(const PackSet& packs) {
  bool freed = false;
  for (const auto& pack : packs.packs) {
    // Freed now, not left to the exit (leave_environments_to_exit): the point is the memory.
    if (auto env = pack.pristine ? pack.pristine->take() : nullptr) {
      env->destroy();
      freed = true;
    }
  }
  // CLIPS's pages went back to malloc, which keeps them unless asked.
  if (freed) malloc_trim(0);
}

Evaluation evaluate(store::Database& db, int64_t run_id, const PackSet& packs,
                    const EvaluationOptions& options) {
  Evaluation ev;
  // The run fact gives the device (which packs apply) and the reference time; it is queried
  // first and then served to the packs like every other fact type.
  if (!packs.catalog) throw EngineError("internal: a pack set without a fact catalog");
  const auto& run_type = *packs.catalog->find("run");
  std::vector<facts::SlotValues> run = facts::query_facts(db, run_id, run_type);
  double base_us = 0, ref_time = 0;
  std::string device = "unknown";
  if (!run.empty())
    for (const auto& [slot, value] : run[0]) {
      if (slot == "ref_time_us") ref_time = value.number();
      if (slot == "base_us") base_us = value.number();
      if (slot == "device") device = value.text;
    }
  if (base_us <= 0) base_us = ref_time;  // default shares are of the run's base
  // Several packs use the same fact types (op, kernel, ...): each is queried once per run, and
  // the queries of all packs that will run are spread over two read connections.
  std::vector<const facts::FactType*> needed;
  std::set<std::string> seen = {run_type.name};
  for (const auto& pack : packs.packs) {
    if (!pack.valid || !applies_to_device(pack, device)) continue;
    for (const auto& name : pack.pack.uses)
      if (const auto* t = pack.fact_type(name); t && seen.insert(name).second) needed.push_back(t);
  }
  auto fetched = prefetch_facts(db, run_id, needed, options.fact_threads);
  fetched[run_type.name].facts = std::move(run);
  // Packs that run only use prefetched types (a valid pack's `uses` are registered types).
  FactSource source = [&](const facts::FactType& t) {
    const FactResult& r = fetched.at(t.name);
    if (r.error) std::rethrow_exception(r.error);
    return r.facts;
  };
  for (const auto& pack : packs.packs) {
    const bool isolate = options.isolate_all || (options.isolate_untrusted && !pack.pack.trusted);
    auto pe = isolate ? evaluate_pack_in_child(pack, source, base_us, device, options.budget)
                      : evaluate_pack(pack, source, base_us, device, options.budget);
    // A pack that did not compile was reported when it loaded; a failure here is news.
    if (pack.valid && pe.result.status != "ok" && pe.result.status != "skipped")
      spdlog::warn("pack {}: {}: {}", pe.result.pack, pe.result.status, pe.result.error);
    spdlog::debug("pack {}: {} in {:.1f} ms, {} rules fired{}", pe.result.pack, pe.result.status,
                  pe.result.elapsed_ms, pe.result.fired, pe.result.isolated ? " (isolated)" : "");
    ev.packs.push_back(std::move(pe.result));
    for (auto& f : pe.findings) ev.findings.push_back(std::move(f));
    if (options.on_pack) options.on_pack(ev.packs.size(), packs.packs.size());
  }
  rank_findings(ev.findings);
  return ev;
}

}  // namespace perfsage::engine
