#include "analyzers/core/tables.h"

namespace perfsage::analyzers::tables {

using store::integer;
using store::real;
using store::text;

const store::DerivedTable& op_stats() {
  static const store::DerivedTable t{
      "op_stats",
      "Device ops per (rank, name, type, core type) from Ascend op tables, or timeline tasks "
      "when a run has no op table (analyzers/core/op_stats.cpp). Shapes, dtypes and formats "
      "are those of the latest execution; counter ratios are means over the executions that "
      "have them.",
      {integer("rank", "", "rank (device) of the profile").with_default("0"),
       text("name", "op name"),
       text("type", "op type (the name for timeline tasks)"),
       text("core_type", "AI_CORE, AI_CPU, AI_VECTOR_CORE, MIX_AIC, ... or the task type"),
       integer("count", "count", "executions"),
       real("total_us", "us", "summed duration"),
       real("avg_us", "us", "mean duration"),
       real("min_us", "us", "shortest execution"),
       real("max_us", "us", "longest execution"),
       real("share", "ratio", "total_us / all ops' total_us"),
       integer("block_dim", "", "block dim (cores used)").or_null(),
       text("input_shapes", "input shapes, ';' between inputs").or_null(),
       text("input_dtypes", "input dtypes").or_null(),
       text("input_formats", "input formats").or_null(),
       text("output_shapes", "output shapes").or_null(),
       text("output_dtypes", "output dtypes").or_null(),
       text("output_formats", "output formats").or_null(),
       text("op_state", "static or dynamic shape").or_null(),
       real("cube_fops", "flop", "cube unit operations, summed").or_null(),
       real("vector_fops", "flop", "vector unit operations, summed").or_null(),
       real("mac_ratio", "ratio", "cube (MAC) pipe busy share").or_null(),
       real("vec_ratio", "ratio", "vector pipe busy share").or_null(),
       real("scalar_ratio", "ratio", "scalar pipe busy share").or_null(),
       real("mte2_ratio", "ratio", "MTE2 (global memory in) busy share").or_null(),
       real("mte3_ratio", "ratio", "MTE3 (global memory out) busy share").or_null(),
       real("read_bytes", "bytes", "global memory read, summed").or_null(),
       real("write_bytes", "bytes", "global memory written, summed").or_null()},
      {"run_id"}};
  return t;
}

const store::DerivedTable& op_type_stats() {
  static const store::DerivedTable t{
      "op_type_stats",
      "op_stats summed per (op type, core type), for runs with an op table "
      "(analyzers/core/op_stats.cpp).",
      {text("type", "op type"), text("core_type", "core type"),
       integer("count", "count", "executions"), integer("ops", "count", "distinct op names"),
       real("total_us", "us", "summed duration"), real("avg_us", "us", "mean execution"),
       real("max_us", "us", "longest execution"),
       real("share", "ratio", "total_us / all ops' total_us")},
      {}};
  return t;
}

const store::DerivedTable& op_block_dims() {
  static const store::DerivedTable t{
      "op_block_dims",
      "Device tasks per (core type, op name, block dim) (analyzers/core/op_stats.cpp).",
      {text("core_type", "core type"), text("name", "op name"),
       integer("block_dim", "", "block dim"), integer("tasks", "count", "tasks"),
       integer("dur_ns", "ns", "their summed duration")},
      {"run_id"}};
  return t;
}

const store::DerivedTable& op_name_totals() {
  static const store::DerivedTable t{
      "op_name_totals",
      "Device tasks per op name over all ranks, types and core types, with their OP State "
      "(analyzers/core/op_stats.cpp), for the fusion_candidate, dynamic_shape and block_dim "
      "facts. Rows in name order.",
      {text("name", "op name"), integer("tasks", "count", "tasks"),
       integer("dur_ns", "ns", "their summed duration"),
       integer("state_tasks", "count", "tasks with an OP State"),
       integer("state_dur_ns", "ns", "their summed duration"),
       integer("dynamic", "", "1 when a task's OP State is dynamic (any case), else 0"),
       integer("static", "", "1 when a task's OP State is static (any case), else 0")},
      {"run_id"}};
  return t;
}

const store::DerivedTable& host_op_totals() {
  static const store::DerivedTable t{
      "host_op_totals",
      "Host ops and annotations per (rank, name, kind): cpu_op, user_annotation, gc and queue "
      "events (analyzers/core/cpu_self_time.cpp), for the host_op fact. Rows in (rank, name, "
      "kind) order.",
      {integer("rank", "", "rank (process) of the trace"), text("name", "op or annotation name"),
       text("kind", "cpu_op, user_annotation, gc or queue"), integer("count", "count", "calls"),
       integer("dur_ns", "ns", "summed duration"), integer("max_ns", "ns", "longest call")},
      {"run_id"}};
  return t;
}

const store::DerivedTable& host_op_self() {
  static const store::DerivedTable t{
      "host_op_self",
      "CPU ops per rank and name with their self time: duration minus the time of the ops "
      "nested in them on the same thread (analyzers/core/cpu_self_time.cpp).",
      {integer("rank", "", "rank (process) of the trace"), text("name", "CPU op name"),
       integer("count", "count", "calls"), integer("total_ns", "ns", "summed duration"),
       integer("self_ns", "ns", "summed self time")},
      {"run_id", "name"}};
  return t;
}

}  // namespace perfsage::analyzers::tables
