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
  // The launch links come from the launch pass (core/launch_pass.h), not kernel_launch_ops:
  // the roofline runs beside the GPU analyzer, and whichever asks first makes the pass.
  a.reads = {"runs",        "hardware",    "op_tasks",   "device_events",
             "host_events", "graph_nodes", "graph_edges"};
  a.writes = {tables::hardware_specs(),   tables::roofline_ops(),        tables::gpu_op_groups(),
              tables::ascend_op_groups(), tables::activation_patterns(), tables::shape_alignment()};
  a.uses_launch_pass = true;
  a.uses_op_groups = true;
  a.uses_op_tasks = true;
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& resources) {
    roofline::analyze_roofline(db, run_id, resources.hardware, resources.passes);
  };
  return a;
}

}  // namespace perfsage::analyzers
