// The graph_match analyzer: Model-graph nodes tied to the profiled ops that ran them
// (graph_op_matches).
#include "analyzers/core/analyzer.h"

#include "analyzers/graph/match_ops.h"
#include "analyzers/graph/tables.h"

namespace perfsage::analyzers {

Analyzer graph_match_analyzer() {
  namespace tables = graph::tables;
  Analyzer a;
  a.name = "graph_match";
  a.reads = {"graph_nodes", "op_tasks", "op_stats"};
  a.writes = {tables::op_matches()};
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& /*resources*/) {
    match_graph_to_ops(db, run_id);
  };
  return a;
}

}  // namespace perfsage::analyzers
