#include "analyzers/graph/tables.h"

namespace perfsage::analyzers::graph::tables {

const store::DerivedTable& op_matches() {
  static const store::DerivedTable t{
      "graph_op_matches",
      "Model-graph nodes tied to the profiled ops that ran them (analyzers/graph/match_ops.cpp).",
      {store::text("graph", "graph name"), store::text("node", "graph node name"),
       store::text("op_name", "profiled op name"),
       store::text("match", "how the names matched: exact, trans_prefix, original or fused")},
      {"run_id", "node"}};
  return t;
}

}  // namespace perfsage::analyzers::graph::tables
