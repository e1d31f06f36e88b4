// A uniform view for pattern matching: nodes with op types, profiled time and formats, and
// directed edges. Built either from a model graph (graph_nodes / graph_edges of GE dumps and
// ONNX models) or, without a graph, from the device task sequence of the op tables
// (consecutive tasks on one stream, in start order, as msadvisor reads kernel_details).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analyzers/core/op_task_pass.h"
#include "store/database.h"

namespace perfsage::analyzers::patterns {

struct OpNode {
  std::string name, type;
  std::string pass;                    // the fusion pass that produced it, when recorded
  int64_t fusion_scope = -1;           // UB fusion scope shared by the nodes of one kernel
  std::vector<std::string> originals;  // original op names merged into it
  // Graph views only (structural estimates without a profile):
  std::string attrs;                      // the node's attributes as JSON
  std::string in_dtype, out_dtype;        // first input / output element type when recorded
  std::vector<std::string> value_inputs;  // inputs that are graph inputs or constants, by name
  int64_t inputs = 0;                     // input tensors recorded
  int64_t outputs = 0;                    // output tensors recorded
  int64_t out_bytes = -1;                 // summed output tensor bytes; -1 when one is unknown
  std::vector<std::string> ops;           // profiled op names of this node
  std::string in_format, out_format;      // first input / output format, when recorded
  // Per input index (graphs only): the producing node's or value's name, the recorded shape
  // (JSON array as stored; "" when not recorded) and format.
  std::vector<std::string> in_src, in_shapes, in_formats;
  std::string out_shape;      // first output's shape (JSON), "" when not recorded
  bool graph_output = false;  // an output is also a graph output (ONNX: read outside the graph)
  size_t order = 0;           // topological (graph) or first-start (sequence) position
};

struct OpGraph {
  std::string source;  // "graph" or "sequence"
  std::string graph;   // graph name ("" for sequences)
  std::string format;  // ge or onnx for graphs, "" for sequences
  int64_t rank = 0;    // the rank of a sequence; graphs are the run's (0)
  std::unordered_map<std::string, std::string> value_dtypes;  // graph inputs and initializers
  std::unordered_set<std::string> initializers;               // ONNX constants read by name
  std::vector<OpNode> nodes;
  std::vector<std::vector<size_t>> succ, pred;
  std::unordered_map<std::string, std::vector<size_t>> by_type;

  size_t add_node(OpNode n);
  void add_edge(size_t from, size_t to);  // ignores self loops and duplicates
};

// Profiled time per op name of a run (summed task time, executions).
struct OpTime {
  double total_us = 0;
  int64_t count = 0;
};
using OpTimes = std::unordered_map<std::string, OpTime>;
OpTimes load_op_times(store::Database& db, int64_t run_id);
// The same for one rank's op tasks.
OpTimes load_op_times(store::Database& db, int64_t run_id, int64_t rank);
// The same from an op task pass of the run (op_stats when it holds none of the rank's tasks).
OpTimes load_op_times(store::Database& db, int64_t run_id, int64_t rank, const OpTaskPass& tasks);

// One view per graph of the run (subgraphs separately); none when the run has no graph.
std::vector<OpGraph> graphs_from_store(store::Database& db, int64_t run_id);

// One view of each rank's task sequence (all its streams), by rank; none when no op tasks. A
// rank's view does not depend on the other ranks' tasks.
std::vector<OpGraph> sequences_from_tasks(const OpTaskPass& tasks);

// Format family of a device format: 4D, 5HD, NZ, ND, or "" when unknown.
std::string format_family(const std::string& format);

}  // namespace perfsage::analyzers::patterns
