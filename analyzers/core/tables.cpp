#include "analyzers/core/tables.h"

namespace perfsage::analyzers::tables {

using store::integer;
using store::real;
using store::text;

const store::DerivedTable& op_stats() {
  static const store::DerivedTable t{
      "op_stats",
      "Device ops per (rank, name, type, core type) from Ascend op tables, or timeline tasks "
      "for a rank without an op table (analyzers/core/op_stats.cpp). Shapes, dtypes and formats "
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
       real("share", "ratio", "total_us / the rank's ops' total_us"),
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
      "op_stats summed per (rank, op type, core type), for the ranks with an op table "
      "(analyzers/core/op_stats.cpp).",
      {integer("rank", "", "rank (device) of the profile; 0 in a run published by an older daemon")
           .with_default("0"),
       text("type", "op type"), text("core_type", "core type"),
       integer("count", "count", "executions"), integer("ops", "count", "distinct op names"),
       real("total_us", "us", "summed duration"), real("avg_us", "us", "mean execution"),
       real("max_us", "us", "longest execution"),
       real("share", "ratio", "total_us / the rank's ops' total_us")},
      {"run_id"}};
  return t;
}

const store::DerivedTable& op_block_dims() {
  static const store::DerivedTable t{
      "op_block_dims",
      "Device tasks per (rank, core type, op name, block dim) (analyzers/core/op_stats.cpp). "
      "Rows by rank, each rank's in the order its tasks first show them.",
      {integer("rank", "", "rank (device) of the profile; 0 in a run published by an older daemon")
           .with_default("0"),
       text("core_type", "core type"), text("name", "op name"),
       integer("block_dim", "", "block dim"), integer("tasks", "count", "tasks"),
       integer("dur_ns", "ns", "their summed duration")},
      {"run_id"}};
  return t;
}

const store::DerivedTable& op_name_totals() {
  static const store::DerivedTable t{
      "op_name_totals",
      "Device tasks per rank and op name over all types and core types, with their OP State "
      "(analyzers/core/op_stats.cpp), for the fusion_candidate, dynamic_shape and block_dim "
      "facts. Rows in (rank, name) order.",
      {integer("rank", "", "rank (device) of the profile; 0 in a run published by an older daemon")
           .with_default("0"),
       text("name", "op name"), integer("tasks", "count", "tasks"),
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
      {integer("rank", "", "rank (process) of the trace; 0 in a run published by an older daemon")
           .with_default("0"),
       text("name", "op or annotation name"), text("kind", "cpu_op, user_annotation, gc or queue"),
       integer("count", "count", "calls"), integer("dur_ns", "ns", "summed duration"),
       integer("max_ns", "ns", "longest call")},
      {"run_id"}};
  return t;
}

const store::DerivedTable& host_op_self() {
  static const store::DerivedTable t{
      "host_op_self",
      "CPU ops per rank and name with their self time: duration minus the time of the ops "
      "nested in them on the same thread (analyzers/core/cpu_self_time.cpp).",
      {integer("rank", "", "rank (process) of the trace; 0 in a run published by an older daemon")
           .with_default("0"),
       text("name", "CPU op name"), integer("count", "count", "calls"),
       integer("total_ns", "ns", "summed duration"), integer("self_ns", "ns", "summed self time")},
      {"run_id", "name"}};
  return t;
}

const store::DerivedTable& rank_totals() {
  static const store::DerivedTable t{
      "rank_totals",
      "Each rank's span and device totals (analyzers/core/rank_totals.cpp), for the run fact "
      "and the wall span every fact's base uses, so that no fact reads the events.",
      {integer("rank", "", "rank of the profile"),
       integer("first_ns", "ns", "earliest event start (step markers aside)").or_null(),
       integer("last_ns", "ns", "latest event end").or_null(),
       integer("device_events", "count", "GPU activities (kernels, copies, sets, syncs)"),
       integer("device_busy_ns", "ns", "summed kernel, copy and set time"),
       integer("op_tasks", "count", "Ascend op tasks"),
       integer("op_busy_ns", "ns", "their summed duration; NULL when none has one").or_null(),
       integer("op_wait_ns", "ns", "their summed Wait Time; NULL when none has one").or_null()},
      {"run_id"}};
  return t;
}

const store::DerivedTable& hccl_totals() {
  static const store::DerivedTable t{
      "hccl_totals",
      "Ascend op tasks on HCCL cores per rank and name (analyzers/core/rank_totals.cpp), the "
      "communication time of the run fact. Rows by rank and name.",
      {integer("rank", "", "rank of the profile"), text("name", "op name").or_null(),
       integer("dur_ns", "ns", "summed duration; NULL when none has one").or_null()},
      {"run_id"}};
  return t;
}

const store::DerivedTable& host_collective_calls() {
  static const store::DerivedTable t{
      "host_collective_calls",
      "Collectives recorded on the host (user annotations and CPU ops named gloo:, nccl:, "
      "c10d:: or mpi:), one row per call (analyzers/core/rank_totals.cpp), for the host_comm "
      "fact.",
      {integer("rank", "", "rank of the profile"),
       integer("tid", "", "thread; NULL when not recorded").or_null(), text("name", "call name"),
       integer("start_ns", "ns", "start"), integer("end_ns", "ns", "end")},
      {"run_id"}};
  return t;
}

}  // namespace perfsage::analyzers::tables
