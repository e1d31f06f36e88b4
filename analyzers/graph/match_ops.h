// Ties model-graph nodes to the ops a profiler measured, by name.
#pragma once

#include <cstdint>

#include "store/database.h"

namespace perfsage::analyzers {

// Fills graph_op_matches(run_id, graph, node, op_name, match) for one run from graph_nodes and
// the op names in op_tasks and op_stats; match is exact | trans_prefix | original | fused (see
// analyzers/graph/name_match.h). Replaces the run's previous matches; a run without graph
// nodes or without ops gets none.
void match_graph_to_ops(store::Database& db, int64_t run_id);

}  // namespace perfsage::analyzers
