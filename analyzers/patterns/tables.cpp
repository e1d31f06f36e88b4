#include "analyzers/patterns/tables.h"

namespace perfsage::analyzers::patterns::tables {

using store::integer;
using store::real;
using store::text;

const store::DerivedTable& fusion_candidates() {
  static const store::DerivedTable t{
      "fusion_candidates",
      "Op sequences matching a fusion pattern in a model graph or the device task sequence, "
      "with their profiled cost, or a structural estimate for graphs without a profile "
      "(analyzers/patterns/analyze_patterns.cpp). A task sequence is each rank's own, costed "
      "with the rank's op times.",
      {integer("rank", "",
               "rank of the task sequence; 0 for a model graph (the run's) and in a run "
               "published by an older daemon")
           .with_default("0"),
       text("pattern", "pattern name"), text("kind", "pattern kind"),
       text("pass", "the fusion pass that would fuse it").or_null(),
       text("fix", "what to do").or_null(), text("source", "graph or sequence"),
       text("graph", "graph name").or_null(), text("nodes", "member nodes, ';' between"),
       text("types", "member op types, ';' between"),
       text("ops", "profiled ops of the members, ';' between").or_null(),
       integer("fused", "", "1 when the graph already fused it"),
       integer("count", "count", "executions of the members").or_null(),
       real("total_us", "us", "their device time").or_null(),
       real("share", "ratio", "total_us / the rank's (a graph: the run's) device time").or_null(),
       text("graph_format", "ge or onnx for graph matches").or_null(),
       integer("saved_bytes", "bytes", "intermediate bytes fusing keeps on chip").or_null(),
       real("structural_share", "ratio", "estimated share of the graph's work").or_null(),
       text("detail", "what was matched, in words").or_null(),
       text("rewrite", "the ONNX rewrite that fuses it, when one exists").or_null()},
      {"run_id"}};
  return t;
}

const store::DerivedTable& transdata_chains() {
  static const store::DerivedTable t{
      "transdata_chains",
      "Chains of format conversions (TransData) that undo each other or feed one op "
      "(analyzers/patterns/transdata.cpp). A task sequence is each rank's own, costed with the "
      "rank's op times.",
      {integer("rank", "",
               "rank of the task sequence; 0 for a model graph (the run's) and in a run "
               "published by an older daemon")
           .with_default("0"),
       text("kind",
            "round_trip, reshape_interrupt, or the format pair of a single conversion (5hd_nz, "
            "nd_nz, 4d_5hd, other, unknown)"),
       text("source", "graph or sequence"), text("graph", "graph name").or_null(),
       text("nodes", "chain nodes, ';' between"),
       text("transdata", "its TransData nodes, ';' between"),
       text("formats", "formats along the chain, '>' between").or_null(),
       text("culprit", "the op whose format choice causes it").or_null(),
       integer("count", "count", "executions of the TransData nodes").or_null(),
       real("total_us", "us", "their device time").or_null(),
       real("share", "ratio", "total_us / the rank's (a graph: the run's) device time").or_null(),
       text("graph_format", "ge or onnx for graph chains").or_null(),
       integer("bytes", "bytes", "bytes the conversions write").or_null(),
       real("structural_share", "ratio", "estimated share of the graph's work").or_null()},
      {"run_id"}};
  return t;
}

const store::DerivedTable& graph_cleanups() {
  static const store::DerivedTable t{
      "graph_cleanups",
      "Nodes an inference graph can drop or fold (no-op transposes, identity chains, constant "
      "subgraphs, ...) (analyzers/patterns/analyze_patterns.cpp).",
      {text("graph", "graph name"), text("graph_format", "ge or onnx"),
       text("kind", "clean-up kind"), text("pass", "the pass that does it"),
       text("nodes", "nodes involved, ';' between"),
       integer("removed", "count", "nodes the clean-up removes"),
       text("detail", "what was found, in words").or_null(),
       integer("exact", "", "1 when the rewrite is exact (same outputs)"),
       integer("bytes", "bytes", "bytes the removed nodes write").or_null(),
       real("structural_share", "ratio", "estimated share of the graph's work"),
       integer("compute_nodes", "count", "compute nodes in the graph")},
      {"run_id"}};
  return t;
}

}  // namespace perfsage::analyzers::patterns::tables
