// The roofline analyzer: The run's hardware spec, Roofline points per Ascend op and per
// GPU-launching op, activation chains and unaligned cube shapes.
#include "analyzers/core/analyzer.h"

#include "analyzers/roofline/roofline.h"
#include "analyzers/roofline/tables.h"

namespace perfsage::analyzers {

Analyzer roofline_analyzer() {
  namespace tables = roofline::tables;
  Analyzer a;
  a.name = "roofline";
  a.reads = {"runs",        "hardware",    "op_tasks",    "device_events",
             "host_events", "graph_nodes", "graph_edges", "kernel_launch_ops"};
  a.writes = {tables::hardware_specs(), tables::roofline_ops(), tables::activation_patterns(),
              tables::shape_alignment()};
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& resources) {
    roofline::analyze_roofline(db, run_id, resources.hardware);
  };
  return a;
}

}  // namespace perfsage::analyzers
