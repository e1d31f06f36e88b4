#include "analyzers/iteration/tables.h"

namespace perfsage::analyzers::iteration::tables {

using store::integer;
using store::real;
using store::text;

const store::DerivedTable& ranks() {
  static const store::DerivedTable t{
      "iteration_ranks",
      "Step breakdown summed per rank over the run's steps (the base's, "
      "analyzers/core/step_ctes.h), from one step source for every rank; steps shorter than a "
      "quarter of the rank's median are left out (analyzers/iteration/rank_balance.cpp).",
      {integer("rank", "", "rank"),
       text("source", "step_trace_time, ProfilerStep, gpu_breakdown or cluster_step_trace_time"),
       integer("steps", "count", "steps summed"),
       real("dur_us", "us",
            "summed step durations (the base's: recorded, else the sum of the breakdown); NULL "
            "when the source has none")
           .or_null(),
       real("computing_us", "us", "device compute time").or_null(),
       real("comm_us", "us", "communication time").or_null(),
       real("comm_not_overlapped_us", "us", "communication not hidden by compute").or_null(),
       real("overlapped_us", "us", "communication hidden by compute").or_null(),
       real("free_us", "us", "device idle time").or_null(),
       real("dataloader_us", "us", "host time in the data loader").or_null(),
       real("optimizer_us", "us", "host time in the optimizer step").or_null()},
      {"run_id"}};
  return t;
}

const store::DerivedTable& device_activity() {
  static const store::DerivedTable t{
      "device_activity",
      "Device activity per (rank, device): busy time, idle gaps and low-utilisation chunks of "
      "the activity window (analyzers/iteration/gpu_activity.cpp).",
      {integer("rank", "", "rank"), integer("device", "", "device index").or_null(),
       integer("activities", "count", "kernels, copies and memsets"),
       real("window_us", "us", "first start to last end").or_null(),
       real("busy_us", "us", "union of the activities").or_null(),
       real("utilisation", "ratio", "busy_us / window_us").or_null(),
       real("gap_threshold_us", "us", "shortest idle interval counted as a gap").or_null(),
       integer("gaps", "count", "idle intervals at or over the threshold").or_null(),
       real("gap_total_us", "us", "their summed length").or_null(),
       real("longest_gap_us", "us", "longest one").or_null(),
       integer("chunks", "count", "equal chunks the window is cut into").or_null(),
       integer("low_chunks", "count", "chunks below the low-utilisation threshold").or_null(),
       real("low_chunk_threshold", "ratio", "that threshold").or_null()},
      {}};
  return t;
}

const store::DerivedTable& schedule() {
  static const store::DerivedTable t{
      "iteration_schedule",
      "Host-side scheduling calls per rank: graph compile-and-execute, online op compilation, "
      "synchronisation, launches and device memory management "
      "(analyzers/iteration/schedule.cpp).",
      {integer("rank", "", "rank"),
       integer("compile_execute_calls", "count", "graph compile-and-execute calls").or_null(),
       real("compile_execute_us", "us", "their time").or_null(),
       integer("op_compile_calls", "count", "online op compilations").or_null(),
       real("op_compile_us", "us", "their time").or_null(),
       integer("sync_calls", "count", "synchronising calls").or_null(),
       real("sync_us", "us", "their time").or_null(),
       integer("launch_calls", "count", "launch calls").or_null(),
       integer("sync_after_launch", "count", "syncs right after a launch").or_null(),
       integer("memory_calls", "count", "device memory allocations and frees").or_null(),
       real("memory_us", "us", "their time").or_null()},
      {}};
  return t;
}

}  // namespace perfsage::analyzers::iteration::tables
