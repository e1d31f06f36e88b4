// The analysis service: one request in (inputs, job, mode), one report or typed error out.
// Both front ends call it — the CLI directly, the daemon from its worker processes. Nothing
// here writes to stdout, reads stdin or exits.
//
//   auto cfg = app::read_config_file(path);               // or AppConfig{} without a file
//   auto kn = app::load_knowledge(cfg->config, app::locate_resources(hints));
//   app::StoreHandle store("perf.db");                     // "" = temporary store
//   auto out = app::analyze(store.db(), request, **kn, cfg->config.limits);
//   if (!out) ... out.error().kind ...
//   out->report  // perfsage::v1::AnalysisReport
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "app/config.h"
#include "app/knowledge.h"
#include "app/knowledge_in_flight.h"
#include "app/result.h"
#include "collectors/common/collector.h"
#include "perfsage/v1/report.pb.h"
#include "store/database.h"
#include "store/results.h"

namespace perfsage::app {

// Current time as ISO-8601 UTC; injected so tests and the daemon control it.
using Clock = std::function<std::string()>;
std::string system_clock_iso8601();

// Progress of a long step: stage name ("ingest", "analyzers", "packs") and the fraction done
// (ingest: of the input bytes; packs: of the packs; negative when unknown). Called on the
// calling thread; must not throw.
using ProgressFn = std::function<void(std::string_view stage, double fraction)>;

struct AnalysisRequest {
  std::vector<std::filesystem::path> inputs;
  std::string job;  // empty: derived from the first input's name
  collectors::Mode mode = collectors::Mode::strict;
  // An identical input set already stored is not ingested again (a run whose analysis did not
  // finish is analysed again); false: it is ingested again, replacing the stored run.
  bool reuse_existing = true;
  bool evaluate_packs = true;  // false: ingest and analyzers only (`perfsage ingest`)
  // false: a run in which nothing was recognised is removed from the store once its report is
  // built (the daemon: such a run fails its job and never joins the job's history).
  bool keep_unrecognised = true;
  Clock clock = system_clock_iso8601;
  ProgressFn progress;
  // Called once the run's id is known (its records committed, or the stored run found), before
  // the analyzers and packs run on it: the daemon shows that run as running meanwhile.
  std::function<void(int64_t run_id)> run_known;
};

struct AnalysisOutcome {
  perfsage::v1::AnalysisReport report;
  int64_t run_id = 0;
  bool reused = false;               // the inputs were already stored and analysed
  std::vector<std::string> notices;  // what the user should be told (reused run, redone analysis)
  // No collector recognised any input: no pack ran and no applied action was judged on it,
  // which is no clean result (the CLI exits 1 unless --lenient, the daemon fails the job).
  bool nothing_recognised = false;
};

Result<AnalysisOutcome> analyze(store::Database& db, const AnalysisRequest& request,
                                const Knowledge& knowledge, const Limits& limits);

// The same analysis while the packs are still loading: the store is written and the analyzers
// run meanwhile, and it waits for the packs before it says anything (a warning, a test pause,
// run_known) and before they are evaluated. The outcome is the one that loading the knowledge
// first gives: a failed load is its error whatever the analysis did; the caller's store must be
// one nothing outlives (StoreHandle("")), since a failed load has then written it.
Result<AnalysisOutcome> analyze(store::Database& db, const AnalysisRequest& request,
                                KnowledgeInFlight& knowledge, const Limits& limits);

// Evaluated findings in the form the store keeps them (store/results.h).
std::vector<store::StoredFinding> to_stored(const std::vector<perfsage::v1::Finding>& findings);

// The stored report of a run (findings as evaluated last time), e.g. for the daemon's API.
Result<perfsage::v1::AnalysisReport> load_report(store::Database& db, int64_t run_id);

// Learns what a store's derived tables are checked against before each analysis
// (store::learn_declared_shapes), for this process and the workers it forks: the forkserver
// calls it with each knowledge load, so no job learns them again.
void learn_derived_table_shapes();

// A store that is either the user's file or a temporary file removed on destruction.
class StoreHandle {
 public:
  explicit StoreHandle(const std::string& path_or_empty);
  ~StoreHandle();
  StoreHandle(const StoreHandle&) = delete;
  StoreHandle& operator=(const StoreHandle&) = delete;
  store::Database& db() { return *db_; }

 private:
  std::filesystem::path temp_dir_;
  std::unique_ptr<store::Database> db_;
};

}  // namespace perfsage::app
