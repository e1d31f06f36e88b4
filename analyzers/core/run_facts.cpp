// Run-level fact types: run and step.
#include "analyzers/core/fact_types.h"

namespace perfsage::analyzers {

using store::FactType;
using store::median_of;
using store::SlotType;

void declare_run_facts(std::vector<FactType>& out) {
  using T = SlotType;
  out.push_back(FactType{
      "run",
      "The run as a whole: framework, device, step summary and total times. Values the "
      "analyzers stored in `runs` win; otherwise they are derived from the raw tables.",
      "one per run",
      {
          {"framework", T::Symbol, "", "pytorch, mindspore, tensorflow, ... or unknown", ""},
          {"device", T::Symbol, "", "ascend, cuda, cpu or unknown", ""},
          {"chip", T::String, "", "chip or GPU model name when known", ""},
          {"ranks", T::Integer, "count", "number of ranks (at least 1)", "1"},
          {"steps", T::Integer, "count", "number of distinct steps seen", ""},
          {"step_time_us", T::Float, "us", "mean step duration of one rank", ""},
          {"step_total_us", T::Float, "us", "sum of step durations over all ranks", ""},
          {"device_time_us", T::Float, "us",
           "summed device task time (Ascend op tasks + GPU kernels, copies, sets)", ""},
          {"wall_us", T::Float, "us", "span from the first to the last recorded event", ""},
          {"base", T::Symbol, "",
           "what estimated gains and shares are stated per: step (one rank's step) when steps "
           "exist, run (the run's wall span) otherwise, none without timing",
           "none"},
          {"base_us", T::Float, "us",
           "the base: mean step duration of one rank (mean over every rank and step of the step "
           "source on the most ranks; a step without a recorded duration is the sum of its "
           "breakdown), else wall_us; every gain is time saved per base and every share gain / "
           "base_us",
           ""},
          {"base_steps", T::Float, "count",
           "steps per rank the base averages (mean over ranks); 1 for the run base", "1.0"},
          {"base_ranks", T::Integer, "count", "ranks the base averages", "1"},
          {"base_units", T::Float, "count",
           "base units the run's totals cover (base_steps x base_ranks): a time summed over the "
           "whole run and all ranks divided by it is the amount per base",
           "1.0"},
          {"ref_time_us", T::Float, "us", "the same as base_us (its former name)", ""},
          {"vendor", T::Symbol, "",
           "GPU vendor of the resolved hardware (nvidia, amd), so advice can name CUDA or HIP "
           "APIs; unknown otherwise",
           "unknown"},
          {"stub_steps", T::Integer, "count",
           "steps under a quarter of their rank's median step (cut short by the end of "
           "profiling), left out of base_us and every step mean",
           "0"},
          {"has_device", T::Symbol, "", "yes when device activity was recorded, else no", "no"},
          {"comm_device_us", T::Float, "us",
           "summed device time of communication tasks (Ascend HCCL tasks, NCCL kernels)", ""},
          {"comm_device_share", T::Float, "ratio", "comm_device_us / device_time_us", ""},
          {"top_comm_op", T::String, "", "the communication op or kernel with the most time", ""},
          {"task_wait_us", T::Float, "us",
           "summed Wait Time of Ascend op tasks (device idle before each task on its stream)", ""},
          {"task_wait_share", T::Float, "ratio", "task_wait_us / (task_wait_us + op task time)",
           ""},
      },
      R"sql(WITH {common},
dev AS (SELECT coalesce(sum(device_events), 0) AS n, sum(device_busy_ns) AS busy FROM rank_totals
        WHERE run_id = ?1),
ops AS (SELECT coalesce(sum(op_tasks), 0) AS n, sum(op_busy_ns) AS busy,
          sum(op_wait_ns) AS wait FROM rank_totals WHERE run_id = ?1),
st AS (SELECT count(DISTINCT step) AS n, avg(dur_ns) / 1000.0 AS mean, count(DISTINCT rank) AS ranks
       FROM recorded_steps WHERE run_id = ?1 AND dur_ns IS NOT NULL),
-- Communication as the rest of perfsage classifies it, per rank and name: the op-table
-- collector files every HCCL task (COMMUNICATION cores, hcom_ names) under core type HCCL
-- (hccl_totals); GPU kernels are collectives as in the GPU breakdown (gpu_comm_kernels: NCCL/RCCL
-- names, or Kineto's "Collective name" argument).
comm AS (
  SELECT name, sum(dur_ns) AS ns FROM hccl_totals WHERE run_id = ?1 GROUP BY name
  UNION ALL
  SELECT name, sum(dur_ns) FROM gpu_comm_kernels WHERE run_id = ?1 GROUP BY name),
commtotal AS (SELECT sum(ns) / 1000.0 AS us FROM comm)
SELECT coalesce(nullif(lower(r.framework), ''), 'unknown') AS framework,
  CASE WHEN lower(r.device) IN ('ascend','npu') THEN 'ascend'
       WHEN lower(r.device) IN ('cuda','gpu','nvidia') THEN 'cuda'
       WHEN lower(r.device) = 'cpu' AND (SELECT n FROM ops) + (SELECT n FROM dev) = 0 THEN 'cpu'
       WHEN (SELECT n FROM ops) > 0 THEN 'ascend'
       WHEN (SELECT n FROM dev) > 0 THEN 'cuda'
       WHEN lower(r.device) = 'cpu' THEN 'cpu'
       ELSE 'unknown' END AS device,
  r.chip AS chip,
  max(1, coalesce(r.ranks, (SELECT ranks FROM st), 1)) AS ranks,
  coalesce(r.steps, (SELECT n FROM st), 0) AS steps,
  coalesce(r.step_time_us, (SELECT mean FROM st), 0.0) AS step_time_us,
  coalesce((SELECT us FROM steptotal), 0.0) AS step_total_us,
  coalesce(r.device_time_us, (coalesce((SELECT busy FROM ops), 0) + coalesce((SELECT busy FROM dev), 0)) / 1000.0) AS device_time_us,
  coalesce(((SELECT e FROM span) - (SELECT s FROM span)) / 1000.0, 0.0) AS wall_us,
  (SELECT kind FROM base) AS base, coalesce((SELECT us FROM base), 0.0) AS base_us,
  (SELECT steps FROM base) AS base_steps, (SELECT ranks FROM base) AS base_ranks,
  (SELECT units FROM base) AS base_units,
  coalesce((SELECT us FROM reftime), 0.0) AS ref_time_us,
  (SELECT count(*) FROM stepall) - (SELECT count(*) FROM stepdur) AS stub_steps,
  coalesce((SELECT CASE WHEN vendor IN ('nvidia', 'amd') THEN vendor END FROM hardware_specs
            WHERE run_id = ?1 LIMIT 1), 'unknown') AS vendor,
  CASE WHEN (SELECT n FROM ops) + (SELECT n FROM dev) > 0 THEN 'yes' ELSE 'no' END AS has_device,
  coalesce((SELECT us FROM commtotal), 0.0) AS comm_device_us,
  coalesce((SELECT us FROM commtotal) * 1000.0 /
           nullif(coalesce((SELECT busy FROM ops), 0) + coalesce((SELECT busy FROM dev), 0), 0),
           0.0) AS comm_device_share,
  (SELECT name FROM comm ORDER BY ns DESC LIMIT 1) AS top_comm_op,
  coalesce((SELECT wait FROM ops), 0) / 1000.0 AS task_wait_us,
  coalesce(CAST((SELECT wait FROM ops) AS REAL) /
           nullif(coalesce((SELECT wait FROM ops), 0) + coalesce((SELECT busy FROM ops), 0), 0),
           0.0) AS task_wait_share
FROM runs r WHERE r.id = ?1)sql"});

  out.push_back(FactType{
      "step",
      "One training step on one rank (from `steps`). Breakdown slots are 0.0 when the source "
      "had no breakdown; `has_breakdown` says which.",
      "one per (rank, step)",
      {
          {"rank", T::Integer, "", "rank", ""},
          {"step", T::Integer, "", "step number", ""},
          {"dur_us", T::Float, "us", "step duration", ""},
          {"computing_us", T::Float, "us", "device computing time", ""},
          {"comm_us", T::Float, "us", "communication time", ""},
          {"comm_not_overlapped_us", T::Float, "us", "communication not hidden by compute", ""},
          {"free_us", T::Float, "us", "device idle time", ""},
          {"dataloader_us", T::Float, "us", "time in the data loader", ""},
          {"optimizer_us", T::Float, "us", "time in the optimizer step", ""},
          {"has_breakdown", T::Symbol, "", "yes when computing/communication/free were recorded",
           "no"},
      },
      R"sql(SELECT rank, step, max(dur_ns) / 1000.0 AS dur_us, sum(computing_us) AS computing_us,
  sum(comm_us) AS comm_us, sum(comm_not_overlapped_us) AS comm_not_overlapped_us,
  sum(free_us) AS free_us, sum(dataloader_us) AS dataloader_us, sum(optimizer_us) AS optimizer_us,
  CASE WHEN count(computing_us) + count(comm_us) + count(free_us) > 0 THEN 'yes' ELSE 'no' END AS has_breakdown
FROM steps WHERE run_id = ?1 GROUP BY rank, step ORDER BY rank, step LIMIT 100000)sql"});
}

}  // namespace perfsage::analyzers
