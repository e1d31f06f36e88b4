// Runs every analyzer over one ingested run, in the order their declarations give.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "analyzers/core/analyzer.h"
#include "analyzers/core/run_totals.h"
#include "store/database.h"

namespace perfsage::analyzers {

// How many analyzers run at once by default: PERFSAGE_ANALYZER_THREADS when set (1 runs them
// one after another), else the machine's cores, at most 4.
unsigned analyzer_threads();

// Told each time an analyzer ends: how many have ended, of how many. Called on one thread at a
// time, though not always the caller's.
using AnalyzerProgress = std::function<void(size_t done, size_t total)>;

// Brings the derived tables to their declared shape, runs every analyzer (analyzers()), up to
// `threads` at once (0: analyzer_threads()) as soon as the tables each reads are written, then
// summarises the run. The stored rows are those of a run one analyzer after another (threads 1;
// also for a store in memory or a write-protected one).
store::RunRecord analyze_run(store::Database& db, int64_t run_id, const RunIdentity& identity,
                             const AnalyzerResources& resources, unsigned threads = 0,
                             const AnalyzerProgress& progress = {});

}  // namespace perfsage::analyzers
