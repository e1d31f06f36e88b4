#include "analyzers/gpu/tables.h"

namespace perfsage::analyzers::gpu::tables {

using store::integer;
using store::real;
using store::text;

const store::DerivedTable& streams() {
  static const store::DerivedTable t{
      "gpu_streams",
      "Device time per stream inside each step window of a rank (analyzers/gpu/gpu_breakdown.cpp).",
      {integer("rank", "", "rank (process) of the trace"),
       integer("step", "", "step number of the window"),
       integer("device", "", "GPU index").or_null(),
       integer("stream", "", "CUDA/HIP stream id").or_null(),
       integer("kernels", "count", "kernels that ran in the window"),
       real("compute_us", "us", "union of the stream's compute kernels in the window"),
       real("comm_us", "us", "union of its collective kernels"),
       real("memcpy_us", "us", "union of its copies"),
       real("memset_us", "us", "union of its memsets"),
       real("busy_us", "us", "union of all its activities"),
       real("idle_us", "us", "window length minus busy_us")},
      {"run_id"}};
  return t;
}

const store::DerivedTable& launch_stats() {
  static const store::DerivedTable t{
      "gpu_launch_stats",
      "Launch, synchronisation and small-kernel statistics per rank with GPU activity or GPU API "
      "calls (analyzers/gpu/launch_stats.cpp).",
      {integer("rank", "", "rank (process) of the trace"),
       integer("launches", "count", "kernel launch calls (runtime and driver)"),
       real("launch_cpu_us", "us", "time in launch calls"),
       real("launch_avg_us", "us", "mean launch call; NULL without launches").or_null(),
       integer("slow_launches", "count", "launch calls longer than the slow-launch cutoff"),
       integer("linked", "count", "activities linked to their call by correlation, graphs aside"),
       real("delay_avg_us", "us", "mean call end -> activity start of linked activities").or_null(),
       real("delay_max_us", "us", "longest such delay").or_null(),
       integer("delayed", "count", "linked activities that started late (delay over the cutoff)"),
       integer("kernels", "count", "kernels"),
       integer("short_kernels", "count", "kernels shorter than the short-kernel cutoff"),
       real("short_kernel_us", "us", "time of those kernels"),
       integer("sync_calls", "count", "synchronising runtime calls"),
       real("sync_us", "us", "time in them"),
       integer("device_sync_calls", "count", "...DeviceSynchronize calls"),
       integer("stream_sync_calls", "count", "...StreamSynchronize calls"),
       integer("event_sync_calls", "count", "...EventSynchronize calls"),
       integer("wait_event_calls", "count", "...StreamWaitEvent calls"),
       integer("gpu_sync_events", "count", "cuda_sync events on the device timeline"),
       real("gpu_sync_us", "us", "their time")},
      {}};
  return t;
}

const store::DerivedTable& api_totals() {
  static const store::DerivedTable t{
      "api_totals",
      "Runtime and driver API calls per (rank, name) (analyzers/gpu/launch_stats.cpp).",
      {integer("rank", "", "rank (process) of the trace"), text("name", "API call name"),
       integer("calls", "count", "calls"), integer("dur_ns", "ns", "their summed time"),
       integer("max_ns", "ns", "longest call")},
      {"run_id"}};
  return t;
}

const store::DerivedTable& kernel_groups() {
  static const store::DerivedTable t{
      "kernel_groups",
      "Kernels grouped per rank by (name, launching op, input types) "
      "(analyzers/gpu/kernel_groups.cpp); rows by rank, then name, op and types. Per rank, so "
      "that a cluster run's table is the union of its ranks' tables (docs/scale-out.md).",
      {integer("rank", "", "rank (process) of the trace; 0 in a run published by an older daemon")
           .with_default("0"),
       text("name", "kernel name"),
       text("op", "launching framework op; NULL when unknown").or_null(),
       text("types", "the op's input dtypes; NULL when unknown").or_null(),
       integer("kernels", "count", "kernels in the group"),
       integer("dur_ns", "ns", "their summed time"),
       real("occ_ns", "ns", "sum of estimated occupancy x duration").or_null(),
       integer("occ_weight", "ns", "duration of the kernels with an occupancy").or_null(),
       real("bps_sum", "bytes/s", "sum of the copies' bytes per second").or_null(),
       integer("bps_n", "count", "kernels with a bandwidth")},
      {"run_id"}};
  return t;
}

const store::DerivedTable& kernel_totals() {
  static const store::DerivedTable t{
      "kernel_totals",
      "Kernels per rank and name (analyzers/gpu/kernel_groups.cpp), by rank and then in name "
      "order, for the kernel fact.",
      {integer("rank", "", "rank (process) of the trace; 0 in a run published by an older daemon")
           .with_default("0"),
       text("name", "kernel name"), integer("kernels", "count", "launches"),
       integer("dur_ns", "ns", "their summed time"), integer("max_ns", "ns", "longest launch"),
       integer("tiny", "count", "launches shorter than 10 us"),
       real("occ_sum", "", "sum of the recorded estimated occupancies"),
       integer("occ_n", "count", "launches with an occupancy"),
       integer("registers", "count", "registers per thread, max over launches").or_null()},
      {"run_id"}};
  return t;
}

const store::DerivedTable& copy_groups() {
  static const store::DerivedTable t{
      "copy_groups",
      "GPU copies and sets per (rank, activity name, kind, copy kind, issuing host call) "
      "(analyzers/gpu/launch_stats.cpp), in that order, for the memcpy fact. The call is "
      "the least-named runtime or driver call of the activity's rank and correlation id.",
      {integer("rank", "", "rank (process) of the trace; 0 in a run published by an older daemon")
           .with_default("0"),
       text("name", "activity name"), text("kind", "memcpy or memset"),
       text("memcpy_kind", "copy kind as recorded").or_null(),
       text("api", "issuing runtime or driver call; NULL when none is recorded").or_null(),
       integer("count", "count", "operations"), integer("dur_ns", "ns", "their summed time"),
       integer("bytes", "bytes", "their summed bytes").or_null()},
      {"run_id"}};
  return t;
}

const store::DerivedTable& launch_profile() {
  static const store::DerivedTable t{
      "gpu_launch_profile",
      "Each rank's kernel-launch profile (analyzers/gpu/kernel_groups.cpp), for the launch "
      "fact; a row per rank with kernels, copies or launch calls, by rank.",
      {integer("rank", "", "rank (process) of the trace; 0 in a run published by an older daemon")
           .with_default("0"),
       integer("kernels", "count", "kernel launches"),
       integer("tiny", "count", "launches shorter than 10 us"),
       integer("median_ns", "ns",
               "median kernel duration (the upper one of an even count); NULL without kernels")
           .or_null(),
       integer("busy_ns", "ns", "summed kernel, memcpy and memset time"),
       integer("launch_api_ns", "ns",
               "summed runtime and driver kernel-launch calls; NULL without any")
           .or_null()},
      {"run_id"}};
  return t;
}

const store::DerivedTable& time_breakdown() {
  static const store::DerivedTable t{
      "gpu_time_breakdown",
      "HTA's temporal breakdown per rank over its step windows (or the profile without steps), "
      "with the idle time split by what the GPU waited for (analyzers/gpu/time_breakdown.cpp, "
      "docs/gpu-definitions.md).",
      {integer("rank", "", "rank (process) of the trace"),
       real("window_us", "us", "summed step windows (or the trace span)"),
       real("busy_us", "us", "union of all activities in the windows"),
       real("compute_us", "us", "union of compute kernels"),
       real("comm_us", "us", "union of collective kernels"),
       real("overlap_us", "us", "compute and communication at once"),
       real("idle_us", "us", "window_us - busy_us"),
       integer("streams", "count", "streams with activity"),
       integer("gaps", "count", "intervals between consecutive activities of a stream"),
       real("host_wait_us", "us",
            "gaps whose next activity's launch call started after the previous one ended"),
       real("kernel_wait_us", "us", "other gaps shorter than the kernel-wait cutoff"),
       real("other_wait_us", "us", "the remaining gaps"),
       real("kernel_wait_cutoff_us", "us", "the cutoff used")},
      {"run_id"}};
  return t;
}

const store::DerivedTable& host_blocking() {
  static const store::DerivedTable t{
      "host_blocking",
      "Runtime calls that block the host until the GPU catches up, per (rank, kind, call, "
      "issuing op, in or out of steps) (analyzers/gpu/host_blocking.cpp).",
      {integer("rank", "", "rank (process) of the trace"),
       text("kind", "sync, dtoh_copy, blocking_copy or alloc").as_symbol(),
       text("call", "runtime call name"),
       text("op", "innermost enclosing framework op; empty when none"),
       text("top_op", "outermost enclosing framework op; empty when none"),
       text("python", "innermost enclosing Python frame; empty when none"),
       integer("in_step", "", "1 inside a step, 0 outside every step, NULL without steps")
           .or_null(),
       integer("calls", "count", "calls"), integer("dur_ns", "ns", "their summed time"),
       integer("max_ns", "ns", "longest call")},
      {"run_id"}};
  return t;
}

const store::DerivedTable& queues() {
  static const store::DerivedTable t{
      "gpu_queues",
      "HTA's queue length per (rank, device, stream) and how its activities were enqueued "
      "(analyzers/gpu/queue_depth.cpp).",
      {integer("rank", "", "rank (process) of the trace"),
       integer("device", "", "GPU index").or_null(), integer("stream", "", "stream id").or_null(),
       integer("activities", "count", "kernels, copies and memsets on the stream"),
       integer("unlinked", "count", "activities without a launch call in the trace"),
       integer("graph_launched", "count", "activities enqueued by a CUDA graph launch"),
       real("busy_us", "us", "union of the stream's activities"),
       real("window_us", "us", "first queue event to last (enqueue or end)"),
       integer("max_depth", "count", "deepest queue"),
       real("median_depth", "count", "time-weighted median queue length"),
       real("mean_depth", "count", "time-weighted mean queue length"),
       real("zero_share", "ratio", "share of the window with an empty queue").or_null()},
      {"run_id"}};
  return t;
}

const store::DerivedTable& collectives() {
  static const store::DerivedTable t{
      "gpu_collectives",
      "Collective kernels per (rank, type) (analyzers/gpu/collectives.cpp).",
      {integer("rank", "", "rank (process) of the trace"),
       text("type", "all_reduce, all_gather, reduce_scatter, broadcast, ... or other").as_symbol(),
       integer("kernels", "count", "collective kernels"),
       integer("dur_ns", "ns", "their summed time"),
       real("bytes", "bytes", "bytes moved, when the trace records message sizes").or_null()},
      {"run_id"}};
  return t;
}

const store::DerivedTable& comm_kernels() {
  static const store::DerivedTable t{
      "gpu_comm_kernels",
      "Communication kernels per rank and name (analyzers/gpu/collectives.cpp, from the pass "
      "that types them: NCCL/RCCL names or a \"Collective name\" argument), for the run fact's "
      "communication time. Rows by rank and name.",
      {integer("rank", "", "rank (process) of the trace"), text("name", "kernel name"),
       integer("kernels", "count", "kernels"), integer("dur_ns", "ns", "their summed time")},
      {"run_id"}};
  return t;
}

const store::DerivedTable& range_counters() {
  static const store::DerivedTable t{
      "gpu_range_counters",
      "CUPTI range-profiler counters per (rank, range name) (analyzers/gpu/range_counters.cpp).",
      {integer("rank", "", "rank (process) of the trace"), text("name", "range name"),
       integer("ranges", "count", "ranges of that name"),
       integer("replay_ns", "ns", "summed range durations"),
       real("flops_fp16", "flop", "half-precision operations").or_null(),
       real("flops_fp32", "flop", "single-precision operations").or_null(),
       real("flops_fp64", "flop", "double-precision operations").or_null(),
       real("tensor_insts", "count", "tensor-core instructions").or_null(),
       real("dram_bytes", "bytes", "DRAM bytes read and written").or_null()},
      {"run_id"}};
  return t;
}

const store::DerivedTable& collective_spans() {
  static const store::DerivedTable t{
      "gpu_collective_spans",
      "Each rank's collective kernels by type, as [start, end) (analyzers/gpu/collectives.cpp): "
      "what gpu_collective_ranks aligns across ranks, kept per rank so that a cluster run's "
      "alignment can be computed from its ranks' rows (docs/scale-out.md). Rows by rank, type "
      "and start.",
      {integer("rank", "", "rank of the trace"), text("type", "collective type"),
       integer("start_ns", "ns", "kernel start"), integer("end_ns", "ns", "kernel end")},
      {"run_id"}};
  return t;
}

const store::DerivedTable& collective_ranks() {
  static const store::DerivedTable t{
      "gpu_collective_ranks",
      "Collectives aligned across ranks, per (rank, type): time waiting for the last rank vs "
      "transferring (analyzers/gpu/collective_alignment.cpp).",
      {integer("rank", "", "rank (process) of the trace"),
       text("type", "collective type").as_symbol(),
       integer("aligned", "count", "collectives matched on every rank"),
       integer("unaligned", "count", "collectives that could not be matched"),
       integer("wait_ns", "ns", "start to the last rank's start, summed"),
       integer("transfer_ns", "ns", "the last rank's start to the end, summed"),
       integer("last_count", "count", "collectives where this rank started last"),
       integer("clock_offset_ns", "ns", "clock offset removed from this rank")},
      {"run_id"}};
  return t;
}

}  // namespace perfsage::analyzers::gpu::tables
