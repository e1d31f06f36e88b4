// The patterns analyzer: fusion candidates and TransData chains over the model graphs (matched
// to profiled ops) or the device task sequence, with structural estimates for graphs without a
// profile, and inference-graph clean-ups.
#include "analyzers/core/analyzer.h"

#include "analyzers/patterns/analyze_patterns.h"
#include "analyzers/patterns/tables.h"

namespace perfsage::analyzers {

Analyzer patterns_analyzer() {
  namespace tables = patterns::tables;
  Analyzer a;
  a.name = "patterns";
  a.reads = {"graph_nodes", "graph_edges", "tensors", "graph_op_matches", "op_stats", "op_tasks"};
  a.writes = {tables::fusion_candidates(), tables::transdata_chains(), tables::graph_cleanups()};
  a.uses_op_tasks = true;
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& resources) {
    analyze_patterns(db, run_id, resources.patterns, resources.passes);
  };
  return a;
}

}  // namespace perfsage::analyzers
