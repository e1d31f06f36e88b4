// Everything an analysis reasons with, loaded once and then shared read-only: the selected
// packs (compiled), the hardware database and the fusion patterns. A long-running process
// (the daemon) loads a new Knowledge on reload and swaps the shared_ptr; analyses already
// running keep the one they started with.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/patterns/pattern_spec.h"
#include "analyzers/roofline/hardware_db.h"
#include "app/config.h"
#include "app/resources.h"
#include "app/result.h"
#include "engine/kb/load_result.h"
#include "engine/kb/selection.h"

namespace perfsage::app {

// The fact types packs may use: those the analyzers declare (analyzers::fact_types()), built
// once; every selection, pack test and report reads this one catalog.
std::shared_ptr<const engine::facts::Catalog> fact_catalog();

// Every fact type's slots against its query's columns, on an empty store with the declared
// derived tables (store::slot_mismatch): one line per fact type that disagrees, empty when all
// agree. perfsaged refuses to start on any; a CLI run's fact queries check the types they read.
std::vector<std::string> fact_type_mismatches();

// docs/facts.md: the fact types, then the derived tables they read.
std::string facts_reference();

// load_packs fills the packs, messages and paths, load_analyzer_knowledge the rest (a new
// member is filled by one of them, and KnowledgeInFlight::wait() moves the packs' part over).
struct Knowledge {
  engine::PackSet packs;  // valid and invalid packs (an invalid one reports status error)
  analyzers::roofline::HardwareDb hardware;
  std::vector<analyzers::patterns::Pattern> patterns;
  std::vector<engine::LoadMessage> messages;      // everything said while loading
  std::vector<std::filesystem::path> pack_paths;  // the search paths, in order
};

struct KnowledgeRequest {
  std::vector<std::string> only;  // --kb: pack names, globs or pack folders; empty = config/all
};

// The pack selection a config and request give: the search paths in order (built-in,
// community, system, user, the config's kb.paths, pack folders named in `request`) and the
// config's selection, with --kb names replacing kb.packs when given.
engine::Selection compose_selection(const AppConfig& config, const Resources& resources,
                                    const KnowledgeRequest& request,
                                    std::vector<engine::LoadMessage>& messages);

// The packs of load_knowledge alone: a Knowledge without hardware specs and patterns, or the
// request's error (the selection names nothing that exists, a configured path is missing).
Result<std::shared_ptr<Knowledge>> load_packs(const AppConfig& config, const Resources& resources,
                                              const KnowledgeRequest& request = {});

// The rest of load_knowledge: the hardware specs and fusion patterns, into `kn`; an Error
// (usage) when one of their files is broken.
std::optional<Error> load_analyzer_knowledge(const AppConfig& config, const Resources& resources,
                                             Knowledge& kn);

// Loads packs, hardware specs and patterns. An Error (kind usage or pack) when the selection
// names nothing that exists, a configured path is missing, or hardware/pattern files are
// broken; a pack that fails to compile is not an error here (it is reported per pack).
Result<std::shared_ptr<const Knowledge>> load_knowledge(const AppConfig& config,
                                                        const Resources& resources,
                                                        const KnowledgeRequest& request = {});

}  // namespace perfsage::app
