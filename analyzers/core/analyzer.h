// An analyzer derives tables from one run's records. Each is declared in its own folder
// (<family>/analyzer.cpp): the tables it reads, the tables it owns with their DDL, and the
// function that writes them. analyze_run() orders the analyzers by what they read and write,
// makes sure their tables exist with the declared shape and runs them; the fact types that read
// a table live in the same folder. Adding an analyzer touches its folder and the list in
// analyzers/core/analyzers.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "analyzers/patterns/pattern_spec.h"
#include "analyzers/roofline/hardware_db.h"
#include "store/database.h"
#include "store/derived_tables.h"

namespace perfsage::analyzers {

class SharedPasses;

// The data analyzers read besides the run: loaded by the application, never found by them.
struct AnalyzerResources {
  const roofline::HardwareDb& hardware;
  const std::vector<patterns::Pattern>& patterns;
  // Passes over the run's events that several analyzers read, set by analyze_run; an analyzer
  // run on its own (null) makes its own (shared_passes.h).
  SharedPasses* passes = nullptr;
};

struct Analyzer {
  std::string name;
  // Tables it reads: raw records (from the collectors) or tables another analyzer writes.
  std::vector<std::string> reads;
  // Tables it owns: declared here, each run's rows replaced whenever the run is analysed.
  std::vector<store::DerivedTable> writes;
  // Raw record tables it adds derived rows to (the GPU analyzer's step windows): readers of
  // those tables run after it.
  std::vector<std::string> adds_to;
  // Whether it reads the launch pass (launch_pass.h), which analyze_run makes once for all.
  bool uses_launch_pass = false;
  // Whether it reads the op groups or the op task pass (shared_passes.h), made once for all.
  bool uses_op_groups = false;
  bool uses_op_tasks = false;
  // Whether it writes straight into the store, as those that add to raw tables do: for one
  // whose rows are so many (one per kernel) that writing them to TEMP tables and copying them
  // costs more than the store's connection held while it writes.
  bool on_store = false;
  std::function<void(store::Database&, int64_t run_id, const AnalyzerResources&)> run;
};

// For each analyzer, the analyzers it waits for: those writing (or adding to) a table it reads.
// Throws std::logic_error on a table owned twice.
std::vector<std::set<size_t>> analyzer_inputs(const std::vector<Analyzer>& declared);

// The analyzers in run order: each after every analyzer writing a table it reads, otherwise in
// declaration order. Throws std::logic_error on a table owned twice or a cycle.
std::vector<Analyzer> order_analyzers(std::vector<Analyzer> declared);

// Every analyzer, ordered (the list in analyzers.cpp, checked once).
const std::vector<Analyzer>& analyzers();

// The tables every analyzer owns, for store::ensure_derived_tables.
std::vector<store::DerivedTable> derived_tables();

// Each family's declaration, in its own folder.
Analyzer op_stats_analyzer();
Analyzer cpu_self_time_analyzer();
Analyzer rank_totals_analyzer();
Analyzer graph_match_analyzer();
Analyzer gpu_analyzer();
Analyzer gpu_launches_analyzer();
Analyzer gpu_launch_links_analyzer();
Analyzer gpu_timeline_analyzer();
Analyzer iteration_analyzer();
Analyzer patterns_analyzer();
Analyzer roofline_analyzer();

}  // namespace perfsage::analyzers
