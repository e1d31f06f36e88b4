// The graph_match analyzer: Model-graph nodes tied to the profiled ops that ran them
// (graph_op_matches).
#include "analyzers/core/analyzer.h"

#include "analyzers/graph/match_ops.h"

namespace perfsage::analyzers {

Analyzer graph_match_analyzer() {
  Analyzer a;
  a.name = "graph_match";
  a.reads = {"graph_nodes", "op_tasks", "op_stats"};
  a.writes.push_back({"graph_op_matches", R"sql(
CREATE TABLE graph_op_matches(
  run_id INTEGER NOT NULL, graph TEXT NOT NULL, node TEXT NOT NULL, op_name TEXT NOT NULL,
  match TEXT NOT NULL);
CREATE INDEX graph_op_matches_run ON graph_op_matches(run_id, node);
)sql"});
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& /*resources*/) {
    match_graph_to_ops(db, run_id);
  };
  return a;
}

}  // namespace perfsage::analyzers
