// The patterns analyzer: fusion candidates and TransData chains over the model graphs (matched
// to profiled ops) or the device task sequence, with structural estimates for graphs without a
// profile, and inference-graph clean-ups.
#include "analyzers/core/analyzer.h"

#include "analyzers/patterns/analyze_patterns.h"

namespace perfsage::analyzers {

Analyzer patterns_analyzer() {
  Analyzer a;
  a.name = "patterns";
  a.reads = {"graph_nodes", "graph_edges", "tensors", "graph_op_matches", "op_stats", "op_tasks"};
  a.writes.push_back({"fusion_candidates", R"sql(
CREATE TABLE fusion_candidates(
  run_id INTEGER NOT NULL, pattern TEXT NOT NULL, kind TEXT NOT NULL, pass TEXT, fix TEXT,
  source TEXT NOT NULL, graph TEXT, nodes TEXT NOT NULL, types TEXT NOT NULL, ops TEXT,
  fused INTEGER NOT NULL, count INTEGER, total_us REAL, share REAL, graph_format TEXT,
  saved_bytes INTEGER, structural_share REAL, detail TEXT, rewrite TEXT);
CREATE INDEX fusion_candidates_run ON fusion_candidates(run_id);
)sql"});
  a.writes.push_back({"transdata_chains", R"sql(
CREATE TABLE transdata_chains(
  run_id INTEGER NOT NULL, kind TEXT NOT NULL, source TEXT NOT NULL, graph TEXT,
  nodes TEXT NOT NULL, transdata TEXT NOT NULL, formats TEXT, culprit TEXT, count INTEGER,
  total_us REAL, share REAL, graph_format TEXT, bytes INTEGER, structural_share REAL);
CREATE INDEX transdata_chains_run ON transdata_chains(run_id);
)sql"});
  a.writes.push_back({"graph_cleanups", R"sql(
CREATE TABLE graph_cleanups(
  run_id INTEGER NOT NULL, graph TEXT NOT NULL, graph_format TEXT NOT NULL, kind TEXT NOT NULL,
  pass TEXT NOT NULL, nodes TEXT NOT NULL, removed INTEGER NOT NULL, detail TEXT,
  exact INTEGER NOT NULL, bytes INTEGER, structural_share REAL NOT NULL,
  compute_nodes INTEGER NOT NULL);
CREATE INDEX graph_cleanups_run ON graph_cleanups(run_id);
)sql"});
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& resources) {
    analyze_patterns(db, run_id, resources.patterns);
  };
  return a;
}

}  // namespace perfsage::analyzers
