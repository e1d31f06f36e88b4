// Fact types of the host's side of a GPU run and of its collectives: host_blocking (calls that
// stop the CPU until the GPU catches up, inside or outside the steps, with the op that issued
// them), gpu_queue (HTA's queue length per rank's busiest stream, graph launches), collective
// (collective kernels by type) and collective_wait (collectives aligned across ranks: waiting
// vs transfer). Definitions: docs/gpu-definitions.md.
#include "analyzers/core/fact_types.h"

namespace perfsage::analyzers {

using store::FactType;
using store::SlotType;

void declare_gpu_host_facts(std::vector<FactType>& out) {
  using T = SlotType;
  out.push_back(FactType{
      "host_blocking",
      "Runtime calls that block the host until the GPU catches up, summed over ranks per (kind, "
      "call, issuing op) (analyzers/gpu/host_blocking.cpp): `sync` (...Synchronize), "
      "`dtoh_copy` (a device-to-host copy into pageable memory or by a blocking API: it waits "
      "for everything queued before it, as tensor.item(), .cpu() and .tolist() do) and "
      "`blocking_copy` (other copies by a blocking API) and `alloc` (cudaMalloc / cudaFree: the "
      "caching allocator going to the driver; cudaFree synchronises the device). Only time "
      "inside ProfilerSteps counts "
      "per step: a sync after the last step (profiler teardown, a final checkpoint) is no cost "
      "of any step.",
      "one per (kind, call, op), at most 2000, most in-step time first",
      {
          {"kind", T::Symbol, "",
           "sync, dtoh_copy, blocking_copy or alloc (cudaMalloc/cudaFree and HIP/driver twins)",
           ""},
          {"call", T::String, "", "runtime call (cudaStreamSynchronize, cudaMemcpyAsync, ...)", ""},
          {"op", T::String, "",
           "innermost framework op (cpu_op or annotation) enclosing the call on its thread "
           "(aten::_local_scalar_dense, aten::to, ...); empty when none",
           ""},
          {"top_op", T::String, "", "outermost enclosing framework op; empty when none", ""},
          {"python", T::String, "", "innermost enclosing Python frame when the trace has them", ""},
          {"ranks", T::Integer, "count", "ranks where the call was made", ""},
          {"calls", T::Integer, "count", "calls in the whole trace", ""},
          {"step_calls", T::Integer, "count", "calls inside steps", ""},
          {"in_step_us", T::Float, "us", "call time inside steps, summed over ranks", ""},
          {"outside_us", T::Float, "us", "call time outside every step (before, after, between)",
           ""},
          {"unknown_us", T::Float, "us", "call time of ranks without steps", ""},
          {"max_us", T::Float, "us", "longest call", ""},
          {"per_step_us", T::Float, "us",
           "in_step_us per base unit (one rank's step); 0 without steps", ""},
          {"share", T::Float, "ratio", "per_step_us / run base_us; 0 without steps", ""},
          {"all_share", T::Float, "ratio",
           "all host-blocking time inside steps per step, every kind and call, / base_us", ""},
          {"steps", T::Symbol, "", "yes when the run's base is a step (in-step time is known)",
           "no"},
      },
      R"sql(WITH {common},
g AS (SELECT kind, call, op, max(top_op) AS top_op, max(python) AS python,
        count(DISTINCT rank) AS ranks, sum(calls) AS calls,
        sum(CASE WHEN in_step = 1 THEN calls ELSE 0 END) AS step_calls,
        sum(CASE WHEN in_step = 1 THEN dur_ns ELSE 0 END) AS in_ns,
        sum(CASE WHEN in_step = 0 THEN dur_ns ELSE 0 END) AS out_ns,
        sum(CASE WHEN in_step IS NULL THEN dur_ns ELSE 0 END) AS unknown_ns, max(max_ns) AS max_ns
      FROM host_blocking WHERE run_id = ?1 GROUP BY kind, call, op),
stepbase AS (SELECT CASE WHEN kind = 'step' AND us > 0 THEN 1 ELSE 0 END AS ok, units, us FROM base)
SELECT kind, call, op, top_op, python, ranks, calls, step_calls, in_ns / 1000.0 AS in_step_us,
  out_ns / 1000.0 AS outside_us, unknown_ns / 1000.0 AS unknown_us, max_ns / 1000.0 AS max_us,
  CASE WHEN (SELECT ok FROM stepbase) = 1 THEN in_ns / 1000.0 / (SELECT units FROM stepbase)
       ELSE 0.0 END AS per_step_us,
  CASE WHEN (SELECT ok FROM stepbase) = 1
       THEN in_ns / 1000.0 / (SELECT units FROM stepbase) / (SELECT us FROM stepbase)
       ELSE 0.0 END AS share,
  CASE WHEN (SELECT ok FROM stepbase) = 1
       THEN (SELECT sum(in_ns) FROM g) / 1000.0 / (SELECT units FROM stepbase) / (SELECT us FROM stepbase)
       ELSE 0.0 END AS all_share,
  CASE WHEN (SELECT ok FROM stepbase) = 1 THEN 'yes' ELSE 'no' END AS steps
FROM g ORDER BY in_ns DESC, out_ns DESC, kind, call, op LIMIT 2000)sql"});

  out.push_back(FactType{
      "gpu_queue",
      "How far the host runs ahead of the GPU on one rank, as HTA's queue length (+1 when the "
      "runtime enqueues an activity, -1 when it ends on the GPU, per stream), on the rank's "
      "busiest stream (most activity time); and how the rank's activities were enqueued.",
      "one per rank with GPU activity",
      {
          {"rank", T::Integer, "", "rank", ""},
          {"ranks", T::Integer, "count", "ranks with GPU activity", "1"},
          {"streams", T::Integer, "count", "streams with activity", ""},
          {"activities", T::Integer, "count", "GPU activities (kernels, copies, sets)", ""},
          {"unlinked", T::Integer, "count",
           "activities without a runtime or driver call of their correlation id (HTA drops them)",
           ""},
          {"unlinked_share", T::Float, "ratio", "unlinked / activities", ""},
          {"graph_launched", T::Integer, "count",
           "activities enqueued by a graph launch (cudaGraphLaunch, hipGraphLaunch, "
           "cuGraphLaunch)",
           ""},
          {"graph_share", T::Float, "ratio", "graph_launched / activities", ""},
          {"stream", T::Integer, "", "the busiest stream (-1 unknown)", "-1"},
          {"stream_activities", T::Integer, "count", "activities on that stream", ""},
          {"median_depth", T::Float, "count",
           "time-weighted median queue depth of that stream over its window (first enqueue to "
           "last end)",
           ""},
          {"mean_depth", T::Float, "count", "time-weighted mean queue depth", ""},
          {"max_depth", T::Integer, "count", "deepest queue", ""},
          {"zero_share", T::Float, "ratio", "share of the window with an empty queue", ""},
      },
      // One pass with window functions: per rank its busiest stream (most activity time, then
      // the lowest stream id) and the rank's totals.
      R"sql(WITH q AS MATERIALIZED (SELECT * FROM gpu_queues WHERE run_id = ?1),
w AS (SELECT q.*,
        row_number() OVER (PARTITION BY rank ORDER BY busy_us DESC, coalesce(stream, -1)) AS i,
        count(*) OVER (PARTITION BY rank) AS rank_streams,
        sum(activities) OVER (PARTITION BY rank) AS rank_activities,
        sum(unlinked) OVER (PARTITION BY rank) AS rank_unlinked,
        sum(graph_launched) OVER (PARTITION BY rank) AS rank_graph FROM q)
SELECT rank, (SELECT count(DISTINCT rank) FROM q) AS ranks, rank_streams AS streams,
  rank_activities AS activities, rank_unlinked AS unlinked,
  CAST(rank_unlinked AS REAL) / rank_activities AS unlinked_share, rank_graph AS graph_launched,
  CAST(rank_graph AS REAL) / rank_activities AS graph_share, coalesce(stream, -1) AS stream,
  activities AS stream_activities, median_depth, mean_depth, max_depth,
  coalesce(zero_share, 1.0) AS zero_share
FROM w WHERE i = 1 AND rank_activities > 0 ORDER BY rank)sql"});

  out.push_back(FactType{
      "collective",
      "Collective kernels (NCCL, RCCL) by type, summed over the profiled ranks "
      "(analyzers/gpu/collectives.cpp). On one rank a collective's duration includes waiting "
      "for the slowest rank to arrive: `profiled_ranks` below `world_size` says the wait "
      "cannot be told from the transfer.",
      "one per collective type",
      {
          {"type", T::Symbol, "",
           "AllReduce, AllGather, ReduceScatter, AllToAll, SendRecv, Send, Recv, Broadcast, "
           "Reduce, Gather, Scatter, Barrier or Other",
           "Other"},
          {"kernels", T::Integer, "count", "kernels", ""},
          {"total_us", T::Float, "us", "summed kernel time over the profiled ranks", ""},
          {"per_base_us", T::Float, "us", "total_us per base unit (one rank's step)", ""},
          {"comm_share", T::Float, "ratio", "share of all collective kernel time", ""},
          {"bytes", T::Float, "bytes",
           "summed message bytes where the kernels carry them (-1 unknown)", "-1.0"},
          {"dominant", T::Symbol, "", "yes for the type with the most time", "no"},
          {"ranks", T::Integer, "count", "profiled ranks running this type", ""},
          {"profiled_ranks", T::Integer, "count", "profiled ranks with collective kernels", ""},
          {"world_size", T::Integer, "count",
           "ranks of the job as the trace states it (distributedInfo); 0 unknown", "0"},
      },
      R"sql(WITH {common},
c AS MATERIALIZED (SELECT * FROM gpu_collectives WHERE run_id = ?1),
t AS (SELECT type, count(DISTINCT rank) AS ranks, sum(kernels) AS kernels, sum(dur_ns) AS ns,
        sum(bytes) AS bytes FROM c GROUP BY type)
SELECT type, kernels, ns / 1000.0 AS total_us, ns / 1000.0 / (SELECT units FROM base) AS per_base_us,
  CAST(ns AS REAL) / (SELECT sum(ns) FROM t) AS comm_share, coalesce(bytes, -1.0) AS bytes,
  CASE WHEN ns = (SELECT max(ns) FROM t)
        AND type = (SELECT min(type) FROM t WHERE ns = (SELECT max(ns) FROM t)) THEN 'yes'
       ELSE 'no' END AS dominant,
  ranks, (SELECT count(DISTINCT rank) FROM c) AS profiled_ranks,
  coalesce((SELECT max(world_size) FROM ranks WHERE run_id = ?1), 0) AS world_size
FROM t ORDER BY ns DESC, type)sql"});

  out.push_back(FactType{
      "collective_wait",
      "Collectives of one type aligned across the profiled ranks (analyzers/gpu/"
      "collective_alignment.cpp): the n-th collective of a type is the same on every rank; the "
      "last rank to start it sets the start of the transfer, and each rank's time before that is "
      "waiting. Clock offsets between the ranks' hosts are removed first (the median difference "
      "of the collectives' ends). Absent with fewer than two ranks of a type.",
      "one per collective type run on at least two profiled ranks",
      {
          {"type", T::Symbol, "", "collective type (AllReduce, AllGather, ...)", "Other"},
          {"ranks", T::Integer, "count", "ranks aligned", ""},
          {"aligned", T::Integer, "count", "collectives aligned on every rank", ""},
          {"unaligned", T::Integer, "count",
           "collectives beyond the shortest rank's count (ranks that recorded more)", ""},
          {"wait_us", T::Float, "us", "waiting for the last rank, summed over ranks", ""},
          {"transfer_us", T::Float, "us", "the rest of the kernels' time, summed over ranks", ""},
          {"wait_share", T::Float, "ratio", "wait_us / (wait_us + transfer_us)", ""},
          {"wait_per_base_us", T::Float, "us",
           "wait_us per base unit (one rank's step, else the run)", ""},
          {"wait_base_share", T::Float, "ratio", "wait_per_base_us / run base_us", ""},
          {"straggler", T::Integer, "", "the rank that arrived last most often", ""},
          {"straggler_last", T::Integer, "count", "collectives it arrived last at", ""},
          {"max_clock_offset_us", T::Float, "us", "largest clock offset removed", ""},
      },
      R"sql(WITH {common},
c AS MATERIALIZED (SELECT * FROM gpu_collective_ranks WHERE run_id = ?1),
s AS (SELECT type, rank, last_count, row_number() OVER (PARTITION BY type
        ORDER BY last_count DESC, rank) AS i FROM c),
t AS (SELECT type, count(*) AS ranks, max(aligned) AS aligned, sum(unaligned) AS unaligned,
        sum(wait_ns) / 1000.0 AS wait_us, sum(transfer_ns) / 1000.0 AS transfer_us,
        max(abs(clock_offset_ns)) / 1000.0 AS max_offset FROM c GROUP BY type)
SELECT t.type, t.ranks, t.aligned, t.unaligned, t.wait_us, t.transfer_us,
  coalesce(t.wait_us / nullif(t.wait_us + t.transfer_us, 0), 0.0) AS wait_share,
  t.wait_us / (SELECT units FROM base) AS wait_per_base_us,
  coalesce(t.wait_us / (SELECT units FROM base) / nullif((SELECT us FROM base), 0), 0.0)
    AS wait_base_share,
  s.rank AS straggler, s.last_count AS straggler_last, t.max_offset AS max_clock_offset_us
FROM t JOIN s ON s.type = t.type AND s.i = 1 ORDER BY t.wait_us DESC)sql"});
}

}  // namespace perfsage::analyzers
