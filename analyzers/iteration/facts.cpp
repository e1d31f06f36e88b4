// Iteration, cluster and schedule fact types: iteration, rank, comm, device_activity,
// schedule (from the iteration analyzers' tables, comm_ops and host_events), host_op (from
// cpu_self_time's host_op_totals and host_op_self).
#include "analyzers/core/fact_types.h"

namespace perfsage::analyzers {

using store::FactType;
using store::median_of;
using store::SlotType;
namespace {

using T = SlotType;

FactType iteration_type() {
  return FactType{
      "iteration",
      "The mean training step of a run: breakdown per step and rank on the run's steps (the "
      "base): from the run's step source when it has a breakdown (step_trace_time.csv, "
      "trace_view Overlap Analysis, cluster_step_trace_time.csv), else from the GPU breakdown; "
      "one source for every rank. Absent when no step has a breakdown.",
      "one per run with a step breakdown",
      {
          {"source", T::Symbol, "", "step source used (step_trace_time, ProfilerStep, ...)", ""},
          {"ranks", T::Integer, "count", "ranks with a breakdown", "1"},
          {"steps", T::Integer, "count", "steps per rank (mean)", ""},
          {"step_us", T::Float, "us",
           "mean step time, the run's base (recorded duration, else computing + exposed comm + "
           "free)",
           ""},
          {"computing_us", T::Float, "us", "mean device computing time per step", ""},
          {"comm_us", T::Float, "us", "mean communication time per step", ""},
          {"comm_not_overlapped_us", T::Float, "us",
           "mean communication not hidden by compute per step", ""},
          {"free_us", T::Float, "us", "mean device idle (free) time per step", ""},
          {"dataloader_us", T::Float, "us", "mean data-loader time per step", ""},
          {"optimizer_us", T::Float, "us", "mean optimizer-step time per step", ""},
          {"computing_share", T::Float, "ratio", "computing_us / step_us", ""},
          {"comm_exposed_share", T::Float, "ratio", "comm_not_overlapped_us / step_us", ""},
          {"overlap_ratio", T::Float, "ratio",
           "share of communication hidden by compute (1 - exposed / comm); 0 without comm", ""},
          {"free_share", T::Float, "ratio", "free_us / step_us", ""},
          {"dataloader_share", T::Float, "ratio", "dataloader_us / step_us", ""},
          {"optimizer_share", T::Float, "ratio", "optimizer_us / step_us", ""},
          {"device_busy_share", T::Float, "ratio",
           "(computing_us + comm_not_overlapped_us) / step_us", ""},
      },
      R"sql(WITH r AS (SELECT * FROM iteration_ranks WHERE run_id = ?1),
a AS (SELECT count(*) AS ranks, min(source) AS source, sum(steps) AS steps,
        sum(CASE WHEN dur_us > 0 THEN dur_us
                 ELSE computing_us + comm_not_overlapped_us + free_us END) AS dur,
        sum(computing_us) AS comp, sum(comm_us) AS comm, sum(comm_not_overlapped_us) AS exposed,
        sum(free_us) AS free, sum(dataloader_us) AS dl, sum(optimizer_us) AS opt FROM r)
SELECT source, ranks, steps / ranks AS steps, dur / steps AS step_us, comp / steps AS computing_us,
  comm / steps AS comm_us, exposed / steps AS comm_not_overlapped_us, free / steps AS free_us,
  dl / steps AS dataloader_us, opt / steps AS optimizer_us, comp / dur AS computing_share,
  exposed / dur AS comm_exposed_share,
  CASE WHEN comm > 0 THEN max(0.0, 1.0 - exposed / comm) ELSE 0.0 END AS overlap_ratio,
  free / dur AS free_share, dl / dur AS dataloader_share, opt / dur AS optimizer_share,
  (comp + exposed) / dur AS device_busy_share
FROM a WHERE ranks > 0 AND steps > 0 AND dur > 0)sql"};
}

FactType rank_type() {
  return FactType{
      "rank",
      "One rank of a multi-rank run with its step breakdown per step (the mean over its steps), "
      "and the spread of each metric between ranks (msprof-analyze slow-rank method: (max - "
      "min) / mean per-rank total of computing + exposed communication + free; the ratio is the "
      "same as over msprof-analyze's sums when ranks have as many steps). Absent for single-rank "
      "runs.",
      "one per rank (runs with at least 2 ranks)",
      {
          {"rank", T::Integer, "", "rank id", ""},
          {"label", T::String, "", "\"rank N\", for subjects and messages", ""},
          {"ranks", T::Integer, "count", "ranks compared", ""},
          {"steps", T::Integer, "count", "steps averaged", ""},
          {"computing_us", T::Float, "us", "computing time per step", ""},
          {"comm_not_overlapped_us", T::Float, "us", "exposed communication per step", ""},
          {"free_us", T::Float, "us", "free time per step", ""},
          {"total_us", T::Float, "us", "computing + exposed communication + free", ""},
          {"mean_total_us", T::Float, "us",
           "mean of total_us over ranks (the denominator: a mean rank's step)", ""},
          {"computing_spread_us", T::Float, "us", "max - min computing over ranks", ""},
          {"comm_spread_us", T::Float, "us", "max - min exposed communication over ranks", ""},
          {"free_spread_us", T::Float, "us", "max - min free over ranks", ""},
          {"computing_gap_us", T::Float, "us", "this rank's computing - the minimum", ""},
          {"comm_gap_us", T::Float, "us", "this rank's exposed communication - the minimum", ""},
          {"free_gap_us", T::Float, "us", "this rank's free - the minimum", ""},
      },
      R"sql(WITH r AS (SELECT rank, steps, computing_us / steps AS c, comm_not_overlapped_us / steps AS x,
                  free_us / steps AS f,
                  (computing_us + comm_not_overlapped_us + free_us) / steps AS t
           FROM iteration_ranks WHERE run_id = ?1 AND steps > 0),
s AS (SELECT count(*) AS n, avg(t) AS mt, min(c) AS cmin, max(c) AS cmax, min(x) AS xmin,
        max(x) AS xmax, min(f) AS fmin, max(f) AS fmax FROM r)
SELECT rank, 'rank ' || rank AS label, s.n AS ranks, steps, c AS computing_us,
  x AS comm_not_overlapped_us, f AS free_us, t AS total_us, s.mt AS mean_total_us,
  s.cmax - s.cmin AS computing_spread_us, s.xmax - s.xmin AS comm_spread_us,
  s.fmax - s.fmin AS free_spread_us, c - s.cmin AS computing_gap_us, x - s.xmin AS comm_gap_us,
  f - s.fmin AS free_gap_us
FROM r, s WHERE s.n >= 2 ORDER BY rank)sql"};
}

FactType comm_type() {
  return FactType{
      "comm",
      "Communication per transport (HCCS, RDMA, PCIE, SDMA, SIO) from communication.json or "
      "cluster_communication.json link rows: volume, achieved bandwidth against the "
      "transport's reference (msadvisor HCCL model: HCCS 18, PCIE 20, RDMA 12.5 GB/s; "
      "msprof-analyze: SDMA 18 GB/s), small packets (msprof-analyze packet_analysis: SDMA-class "
      "< 16 MB, RDMA < 1 MB, MB of 10^6 bytes as the files write them; counted over the Size "
      "Distribution's packets when recorded, else over transfers) and the per-rank bandwidth "
      "spread. Times and sizes are summed over every rank and step.",
      "one per transport",
      {
          {"transport", T::Symbol, "", "HCCS, RDMA, PCIE, SDMA, SIO, ...", ""},
          {"ops", T::Integer, "count", "op transfers over this transport", ""},
          {"ranks", T::Integer, "count", "ranks that used it", ""},
          {"transit_us", T::Float, "us", "summed transit time", ""},
          {"bytes", T::Float, "bytes", "summed transit size", ""},
          {"bandwidth_gbps", T::Float, "GB/s", "bytes / transit time", ""},
          {"ref_bandwidth_gbps", T::Float, "GB/s", "reference bandwidth; 0 when none is known", ""},
          {"bandwidth_ratio", T::Float, "ratio", "bandwidth / reference; 0 when unknown", ""},
          {"small_threshold_bytes", T::Float, "bytes",
           "size below which a packet or transfer is small; 0 when not judged", ""},
          {"small_basis", T::Symbol, "", "packets (Size Distribution) or transfers", "transfers"},
          {"small_ops", T::Integer, "count", "small packets (or transfers)", ""},
          {"small_total", T::Integer, "count", "packets (or transfers) judged", ""},
          {"small_share", T::Float, "ratio", "small_ops / small_total", ""},
          {"large_packet_ratio", T::Float, "ratio",
           "mean Large Packet Ratio of the transfers (-1 when not recorded)", "-1.0"},
          {"max_transit_us", T::Float, "us", "longest single transfer", ""},
          {"min_rank", T::Integer, "", "rank with the lowest bandwidth", ""},
          {"max_rank", T::Integer, "", "rank with the highest bandwidth", ""},
          {"min_rank_gbps", T::Float, "GB/s", "lowest per-rank bandwidth", ""},
          {"max_rank_gbps", T::Float, "GB/s", "highest per-rank bandwidth", ""},
          {"rank_spread", T::Float, "ratio",
           "(max - min) / mean of per-rank bandwidth; 0 with one rank", ""},
      },
      R"sql(WITH l AS MATERIALIZED (SELECT rank, upper(transport) AS transport, bytes, transit_us,
             packets, large_packet_ratio
           FROM comm_ops WHERE run_id = ?1 AND transport IS NOT NULL AND transit_us > 0),
pr AS (SELECT transport, rank, sum(bytes) / sum(transit_us) / 1000.0 AS gbps FROM l
       GROUP BY transport, rank),
prs AS (SELECT transport, count(*) AS n, avg(gbps) AS mean, min(gbps) AS lo, max(gbps) AS hi
        FROM pr GROUP BY transport),
ref AS (SELECT column1 AS transport, column2 AS gbps, column3 AS small FROM (VALUES
        ('HCCS', 18.0, 16.0e6), ('PCIE', 20.0, 16.0e6), ('SDMA', 18.0, 16.0e6),
        ('RDMA', 12.5, 1.0e6))),
pk AS (SELECT l.transport, json_extract(j.value, '$[0]') * 1.0e6 AS size,
         json_extract(j.value, '$[1]') AS n
       FROM l, json_each(l.packets) j WHERE l.packets IS NOT NULL),
pks AS (SELECT pk.transport, sum(n) AS packets,
          sum(CASE WHEN ref.small > 0 AND size < ref.small THEN n ELSE 0 END) AS small
        FROM pk LEFT JOIN ref ON ref.transport = pk.transport GROUP BY pk.transport),
agg AS (SELECT l.transport, count(*) AS ops, count(DISTINCT rank) AS ranks,
          sum(transit_us) AS transit_us, coalesce(sum(bytes), 0) AS bytes,
          coalesce(sum(bytes), 0) / sum(transit_us) / 1000.0 AS bw,
          sum(CASE WHEN ref.small > 0 AND bytes < ref.small THEN 1 ELSE 0 END) AS small_ops,
          max(transit_us) AS max_transit_us, avg(large_packet_ratio) AS lpr
        FROM l LEFT JOIN ref ON ref.transport = l.transport GROUP BY l.transport)
SELECT agg.transport, ops, agg.ranks, transit_us, bytes, bw AS bandwidth_gbps,
  coalesce(ref.gbps, 0.0) AS ref_bandwidth_gbps,
  CASE WHEN ref.gbps > 0 THEN bw / ref.gbps ELSE 0.0 END AS bandwidth_ratio,
  coalesce(ref.small, 0.0) AS small_threshold_bytes,
  CASE WHEN pks.packets > 0 THEN 'packets' ELSE 'transfers' END AS small_basis,
  CASE WHEN pks.packets > 0 THEN pks.small ELSE small_ops END AS small_ops,
  CASE WHEN pks.packets > 0 THEN pks.packets ELSE ops END AS small_total,
  CASE WHEN pks.packets > 0 THEN CAST(pks.small AS REAL) / pks.packets
       ELSE CAST(small_ops AS REAL) / ops END AS small_share,
  coalesce(lpr, -1.0) AS large_packet_ratio, max_transit_us,
  (SELECT rank FROM pr WHERE pr.transport = agg.transport ORDER BY gbps, rank LIMIT 1) AS min_rank,
  (SELECT rank FROM pr WHERE pr.transport = agg.transport ORDER BY gbps DESC, rank LIMIT 1) AS max_rank,
  prs.lo AS min_rank_gbps, prs.hi AS max_rank_gbps,
  CASE WHEN prs.n > 1 AND prs.mean > 0 THEN (prs.hi - prs.lo) / prs.mean ELSE 0.0 END AS rank_spread
FROM agg LEFT JOIN ref ON ref.transport = agg.transport
LEFT JOIN prs ON prs.transport = agg.transport
LEFT JOIN pks ON pks.transport = agg.transport ORDER BY agg.transport)sql"};
}

FactType comm_wait_type() {
  return FactType{
      "comm_wait",
      "Time each rank waits inside its collectives (communication.json / "
      "cluster_communication.json Communication Time Info): a rank that waits most of a "
      "collective's time arrived early and waits for a later one (msadvisor HCCL model "
      "WAIT_TIME_THRESHOLD 0.2). Per step of the rank; one fact per rank with collective "
      "times, and how the ranks compare.",
      "one per rank with communication time info",
      {
          {"rank", T::Integer, "", "rank", ""},
          {"ranks", T::Integer, "count", "ranks with communication time info", "1"},
          {"steps", T::Float, "count", "steps of this rank in the communication data", "1.0"},
          {"ops", T::Integer, "count", "collective and p2p ops of the rank", ""},
          {"elapse_us", T::Float, "us", "summed op elapse time per step", ""},
          {"wait_us", T::Float, "us", "summed wait time per step", ""},
          {"transit_us", T::Float, "us", "summed transit time per step", ""},
          {"wait_ratio", T::Float, "ratio",
           "wait / (wait + transit), as the files' Wait Time Ratio", ""},
          {"wait_ratio_median", T::Float, "ratio", "median wait_ratio over ranks", ""},
          {"min_wait_rank", T::Integer, "", "the rank that waits least (arrives last)", ""},
          {"min_wait_us", T::Float, "us", "its wait per step", ""},
          {"min_wait_ratio", T::Float, "ratio", "its wait ratio", ""},
      },
      R"sql(WITH c AS (SELECT rank, count(*) AS ops,
             max(1, count(DISTINCT coalesce(step, -1))) AS steps,
             sum(coalesce(dur_ns, 0)) / 1000.0 AS elapse, sum(coalesce(wait_us, 0)) AS wait,
             sum(coalesce(transit_us, 0)) AS transit
           FROM comm_ops WHERE run_id = ?1 AND transport IS NULL
             AND (wait_us IS NOT NULL OR transit_us IS NOT NULL) GROUP BY rank),
x AS MATERIALIZED (SELECT rank, steps, ops, elapse / steps AS elapse_us, wait / steps AS wait_us,
        transit / steps AS transit_us,
        coalesce(wait / nullif(wait + transit, 0), 0.0) AS wait_ratio FROM c),
lo AS (SELECT rank, wait_us, wait_ratio FROM x ORDER BY wait_ratio, rank LIMIT 1)
SELECT x.*, (SELECT count(*) FROM x) AS ranks, )sql" +
          median_of("wait_ratio") + R"sql( AS wait_ratio_median,
  (SELECT rank FROM lo) AS min_wait_rank, (SELECT wait_us FROM lo) AS min_wait_us,
  (SELECT wait_ratio FROM lo) AS min_wait_ratio
FROM x ORDER BY rank)sql"};
}

FactType device_activity_type() {
  return FactType{
      "device_activity",
      "Device activity per rank and device: the union of kernels, copies and sets over the "
      "window from the first to the last activity, idle gaps (Nsight Systems gpu_gaps, "
      "500 ms) and low-utilisation chunks (gpu_time_util: 30 chunks below 50 %).",
      "one per (rank, device) with device activity",
      {
          {"rank", T::Integer, "", "rank", ""},
          {"device", T::Integer, "", "device id, -1 when unknown", "-1"},
          {"activities", T::Integer, "count", "kernels, copies and sets", ""},
          {"window_us", T::Float, "us", "first activity start to last activity end", ""},
          {"busy_us", T::Float, "us", "time with at least one activity running", ""},
          {"utilisation", T::Float, "ratio", "busy_us / window_us", ""},
          {"gap_threshold_us", T::Float, "us", "gap length counted in gaps", ""},
          {"gaps", T::Integer, "count", "idle gaps at least gap_threshold_us long", ""},
          {"gap_total_us", T::Float, "us", "summed length of those gaps", ""},
          {"longest_gap_us", T::Float, "us", "longest idle gap of any length", ""},
          {"chunks", T::Integer, "count", "equal chunks the window was split into", ""},
          {"low_chunks", T::Integer, "count", "chunks below the utilisation threshold", ""},
          {"steps", T::Float, "count",
           "steps of this rank (1 without steps): window times / steps are per step", "1.0"},
          {"step_us", T::Float, "us",
           "mean step of this rank (its base); the run's base without steps", ""},
          {"ranks", T::Integer, "count", "(rank, device) pairs with device activity", "1"},
          {"utilisation_median", T::Float, "ratio", "median utilisation over them", ""},
      },
      R"sql(WITH {common},
x AS MATERIALIZED (SELECT a.rank, coalesce(a.device, -1) AS device, activities, window_us, busy_us,
        utilisation, gap_threshold_us, gaps, gap_total_us, longest_gap_us, chunks, low_chunks,
        coalesce(rs.n, 1.0) AS steps, coalesce(rs.mean, (SELECT us FROM base)) AS step_us
      FROM device_activity a LEFT JOIN rankstep rs ON rs.rank = a.rank WHERE a.run_id = ?1)
SELECT x.*, (SELECT count(*) FROM x) AS ranks, )sql" +
          median_of("utilisation") + R"sql( AS utilisation_median
FROM x ORDER BY rank, device LIMIT 10000)sql"};
}

FactType schedule_type() {
  return FactType{
      "schedule",
      "Host-side AscendCL schedule per rank: on-line compilation (aclopCompileAndExecute, whose "
      "time includes executing the op, and opCompile, the compilation itself), stream "
      "synchronisation and its co-occurrence with Node@launch, memory APIs. Times are per step "
      "of this rank and shares are of this rank's mean step (without steps: per run, of the "
      "run's base); `ranks` and the medians say how the ranks compare.",
      "one per rank with AscendCL schedule events",
      {
          {"rank", T::Integer, "", "rank", ""},
          {"ranks", T::Integer, "count", "ranks with schedule events", "1"},
          {"steps", T::Float, "count", "steps of this rank the times are averaged over", "1.0"},
          {"step_us", T::Float, "us",
           "mean step of this rank (the share denominator); the run's base without steps", ""},
          {"compile_execute_calls", T::Integer, "count",
           "aclopCompileAndExecute calls in all steps", ""},
          {"compile_execute_us", T::Float, "us", "their time per step (compile + execute)", ""},
          {"compile_share", T::Float, "ratio", "compile_execute_us / step_us", ""},
          {"op_compile_calls", T::Integer, "count", "opCompile calls in all steps", ""},
          {"op_compile_us", T::Float, "us", "their time per step (the compilation itself)", ""},
          {"op_compile_share", T::Float, "ratio", "op_compile_us / step_us", ""},
          {"op_compile_share_median", T::Float, "ratio", "median op_compile_share over ranks", ""},
          {"sync_calls", T::Integer, "count", "aclrtSynchronizeStream* calls in all steps", ""},
          {"sync_us", T::Float, "us", "their time per step", ""},
          {"sync_share", T::Float, "ratio", "sync_us / step_us", ""},
          {"sync_share_median", T::Float, "ratio", "median sync_share over ranks", ""},
          {"launch_calls", T::Integer, "count", "Node@launch events", ""},
          {"co_occurrence", T::Float, "ratio",
           "syncs directly after a Node@launch / Node@launch events; 0 without launches", ""},
          {"memory_calls", T::Integer, "count", "AscendCL malloc/free calls in all steps", ""},
          {"memory_us", T::Float, "us", "their time per step", ""},
          {"memory_us_median", T::Float, "us", "median memory_us over ranks", ""},
      },
      R"sql(WITH {common},
s AS (SELECT sc.*, coalesce(rs.n, 1.0) AS steps, coalesce(rs.mean, (SELECT us FROM base)) AS step_us
      FROM iteration_schedule sc LEFT JOIN rankstep rs ON rs.rank = sc.rank WHERE sc.run_id = ?1),
x AS MATERIALIZED (SELECT rank, steps, step_us, compile_execute_calls,
        compile_execute_us / steps AS compile_execute_us,
        compile_execute_us / steps / nullif(step_us, 0) AS compile_share,
        op_compile_calls, op_compile_us / steps AS op_compile_us,
        coalesce(op_compile_us / steps / nullif(step_us, 0), 0.0) AS op_compile_share,
        sync_calls, sync_us / steps AS sync_us,
        coalesce(sync_us / steps / nullif(step_us, 0), 0.0) AS sync_share, launch_calls,
        CASE WHEN launch_calls > 0 THEN CAST(sync_after_launch AS REAL) / launch_calls
             ELSE 0.0 END AS co_occurrence,
        memory_calls, coalesce(memory_us, 0.0) / steps AS memory_us FROM s)
SELECT rank, (SELECT count(*) FROM x) AS ranks, steps, step_us, compile_execute_calls,
  compile_execute_us, compile_share, op_compile_calls, op_compile_us, op_compile_share,
  )sql" + median_of("op_compile_share") +
          R"sql( AS op_compile_share_median, sync_calls, sync_us,
  sync_share, )sql" +
          median_of("sync_share") + R"sql( AS sync_share_median, launch_calls,
  co_occurrence, memory_calls, memory_us, )sql" +
          median_of("memory_us") + R"sql( AS memory_us_median
FROM x ORDER BY rank)sql"};
}

FactType host_op_type() {
  return FactType{
      "host_op",
      "Host-side framework ops and annotations aggregated by name and kind (cpu_op, "
      "user_annotation, gc, queue): optimizer steps, data loading, SyncBatchNorm, garbage "
      "collection.",
      "one per (name, kind), at most 20000, longest total first",
      {
          {"name", T::String, "", "op or annotation name (Optimizer.step#Adam.step, ...)", ""},
          {"kind", T::Symbol, "", "cpu_op, user_annotation, gc or queue", ""},
          {"count", T::Integer, "count", "calls", ""},
          {"total_us", T::Float, "us", "summed duration", ""},
          {"max_us", T::Float, "us", "longest call", ""},
          {"share", T::Float, "ratio",
           "share of the run's base: total_us / run base_units / run base_us", ""},
          {"self_us", T::Float, "us",
           "cpu_op only: summed self time (the duration minus the ops nested in it on its "
           "thread)",
           ""},
          {"self_share", T::Float, "ratio", "self_us / run base_units / run base_us", ""},
      },
      R"sql(WITH {common},
h AS MATERIALIZED (
  SELECT name, kind, sum(count) AS count, sum(dur_ns) / 1000.0 AS total_us,
    max(max_ns) / 1000.0 AS max_us
  FROM host_op_totals WHERE run_id = ?1 GROUP BY name, kind),
s AS MATERIALIZED (
  SELECT name, sum(self_ns) AS self_ns FROM host_op_self WHERE run_id = ?1 GROUP BY name)
SELECT h.name, h.kind, h.count, h.total_us, h.max_us,
  h.total_us / (SELECT units FROM base) / nullif((SELECT us FROM base), 0) AS share,
  CASE WHEN h.kind = 'cpu_op' THEN s.self_ns / 1000.0 END AS self_us,
  CASE WHEN h.kind = 'cpu_op' THEN
    s.self_ns / 1000.0 / (SELECT units FROM base) / nullif((SELECT us FROM base), 0) END
    AS self_share
FROM h LEFT JOIN s ON s.name = h.name
ORDER BY h.total_us DESC LIMIT 20000)sql"};
}

// Host-side collectives (gloo on CPU-only runs; the annotations PyTorch's ProcessGroup writes
// on its work threads) against the steps: how long a collective is in flight within a step.
FactType host_comm_type() {
  return FactType{
      "host_comm",
      "Collectives recorded as host annotations or CPU ops (gloo:all_reduce, ... on the "
      "ProcessGroup's work threads), against the ProfilerStep steps of their rank: per step, "
      "the busiest such thread's time in flight inside the step (clipped to it), averaged over "
      "steps. Absent without such events or steps.",
      "one per run",
      {
          {"calls", T::Integer, "count", "collective calls in the profile", ""},
          {"threads", T::Integer, "count", "threads they ran on", ""},
          {"total_us", T::Float, "us", "their summed duration over the whole profile", ""},
          {"steps", T::Integer, "count", "steps compared (rank x step)", ""},
          {"ranks", T::Integer, "count", "ranks those steps belong to", ""},
          {"busy_us", T::Float, "us",
           "per step: the busiest collective thread's time inside the step, mean over steps", ""},
          {"busy_share", T::Float, "ratio", "busy_us over the step's duration, mean over steps",
           ""},
          {"worst_share", T::Float, "ratio", "the largest such share of one step", ""},
          {"step_us", T::Float, "us", "mean duration of the steps compared", ""},
          {"top", T::String, "", "the collective with the most time", ""},
      },
      R"sql(WITH rs AS MATERIALIZED (
  SELECT rank, step, start_ns AS s, start_ns + dur_ns AS e FROM steps
  WHERE run_id = ?1 AND source = 'ProfilerStep' AND dur_ns > 0),
c AS MATERIALIZED (
  SELECT rank, tid, name, start_ns AS s, end_ns AS e FROM host_collective_calls
  WHERE run_id = ?1),
per AS (
  SELECT rs.rank, rs.step, c.tid, rs.e - rs.s AS dur,
    sum(max(0, min(c.e, rs.e) - max(c.s, rs.s))) AS busy
  FROM c CROSS JOIN rs ON rs.rank = c.rank GROUP BY rs.rank, rs.step, c.tid),
by_step AS (SELECT rank, step, max(busy) AS busy, dur FROM per GROUP BY rank, step)
SELECT (SELECT count(*) FROM c) AS calls, (SELECT count(DISTINCT tid) FROM c) AS threads,
  (SELECT sum(e - s) FROM c) / 1000.0 AS total_us, count(*) AS steps,
  count(DISTINCT rank) AS ranks,
  avg(busy) / 1000.0 AS busy_us, avg(CAST(busy AS REAL) / dur) AS busy_share,
  max(CAST(busy AS REAL) / dur) AS worst_share, avg(dur) / 1000.0 AS step_us,
  (SELECT name FROM c GROUP BY name ORDER BY sum(e - s) DESC LIMIT 1) AS top
FROM by_step HAVING count(*) > 0)sql"};
}

}  // namespace

void declare_iteration_facts(std::vector<FactType>& out) {
  out.push_back(iteration_type());
  out.push_back(rank_type());
  out.push_back(comm_type());
  out.push_back(comm_wait_type());
  out.push_back(device_activity_type());
  out.push_back(schedule_type());
  out.push_back(host_op_type());
  out.push_back(host_comm_type());
}

}  // namespace perfsage::analyzers
