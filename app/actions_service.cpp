#include "app/actions_service.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

#include "actions/plan.h"
#include "actions/verify.h"
#include "collectors/common/collector.h"
#include "collectors/ingest.h"
#include "store/run_registry.h"

namespace perfsage::app {
namespace v1 = perfsage::v1;
namespace {

// Runs `body`, turning the layers' exceptions into typed errors at this boundary.
template <class T, class Body>
Result<T> guard(Body&& body) {
  try {
    return body();
  } catch (const actions::ActionError& e) {
    using K = actions::ActionError::Kind;
    return Error{e.kind() == K::input ? ErrorKind::input : ErrorKind::usage, e.what()};
  } catch (const store::InputError& e) {  // collectors::ParseError too
    return Error{ErrorKind::input, e.what()};
  } catch (const store::StoreError& e) {
    return Error{ErrorKind::store, e.what()};
  } catch (const std::invalid_argument& e) {
    return Error{ErrorKind::usage, e.what()};
  } catch (const std::exception& e) {
    return Error{ErrorKind::input, e.what()};
  }
}

std::vector<v1::Finding> stored_findings(store::Database& db, int64_t run_id) {
  auto report = load_report(db, run_id);
  if (!report) return {};
  return {report->recommendations().begin(), report->recommendations().end()};
}

}  // namespace

actions::Actor default_actor(Clock clock) {
  const char* user = std::getenv("USER");
  std::string who = user && *user ? user : "";
  if (who.empty()) {
    // No $USER (cron, containers): the account of the process.
    if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_name) who = pw->pw_name;
  }
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  std::string name =
      (who.empty() ? "uid" + std::to_string(::getuid()) : who) + "@" + (*host ? host : "localhost");
  return {name, std::move(clock)};
}

Result<std::optional<int64_t>> stored_run_of(store::Database& db,
                                             const std::filesystem::path& path) {
  return guard<std::optional<int64_t>>([&]() -> Result<std::optional<int64_t>> {
    auto files = collectors::expand_inputs({path});
    return store::find_run_by_fingerprint(db, collectors::fingerprint_inputs(files));
  });
}

Result<PlanOutcome> plan_run_actions(store::Database& db, int64_t run_id,
                                     const std::vector<std::string>& findings,
                                     const actions::Actor& actor) {
  return guard<PlanOutcome>([&]() -> Result<PlanOutcome> {
    auto run = store::load_run(db, run_id);
    if (!run)
      return Error{ErrorKind::usage, "no run " + std::to_string(run_id) + " in " + db.path()};
    auto report = load_report(db, run_id);
    if (!report) return report.error();
    std::vector<v1::Finding> all(report->recommendations().begin(),
                                 report->recommendations().end());
    auto planned = actions::plan_actions(db, {run_id, run->job, actor.clock()}, all, findings);
    PlanOutcome out;
    out.run_id = run_id;
    out.plans = actions::save_plans(db, std::move(planned.plans), actor);
    out.notes = std::move(planned.notes);
    return out;
  });
}

Result<v1::ActionApply> apply_planned_action(store::Database& db, int64_t plan_id,
                                             const actions::ApplyOptions& options,
                                             const actions::Actor& actor) {
  return guard<v1::ActionApply>([&] { return actions::apply_action(db, plan_id, options, actor); });
}

Result<v1::ActionApply> roll_back_action(store::Database& db, int64_t apply_id,
                                         const actions::Actor& actor) {
  return guard<v1::ActionApply>([&] { return actions::rollback_action(db, apply_id, actor); });
}

Result<v1::ActionList> list_planned_actions(store::Database& db, std::optional<int64_t> run_id) {
  return guard<v1::ActionList>([&] { return actions::list_actions(db, run_id); });
}

Result<v1::ActionAudit> action_audit(store::Database& db) {
  return guard<v1::ActionAudit>([&] { return actions::audit_trail(db); });
}

Result<std::vector<v1::ActionVerdict>> verify_applied_actions(store::Database& db,
                                                              const actions::Actor& actor,
                                                              std::optional<int64_t> after_run) {
  return guard<std::vector<v1::ActionVerdict>>([&] {
    return actions::verify_actions(
        db, [&](int64_t run) { return stored_findings(db, run); }, actor, after_run);
  });
}

}  // namespace perfsage::app
