// The one definition of a run's steps as every mean over steps reads them (the run fact's base,
// the run totals, the per-rank breakdown): CTEs over recorded_steps of run ?1, to put after
// WITH. A stub step (under a quarter of its rank's median step: cut short by the end of
// profiling) is left out of every mean; the run fact counts such steps (stub_steps).
//
// One report has one step base (issue 26 item 18): the steps of one step source, the one that
// covers the most ranks. A folder can hold one rank's trace_view.json (ProfilerStep spans)
// beside a cluster_step_trace_time.csv of every rank; taking the spans for the base and the
// cluster rows for the rank comparison stated gains on a 14 ms step and a 1.5 s step in one
// report. Sources with as many ranks are taken in the order of step_source_rank below.
#pragma once

#include <string>
#include <string_view>

namespace perfsage::analyzers {

// The order in which step sources with as many ranks are preferred: the most detailed first.
// gpu_breakdown (the GPU analyzer's windows of the ProfilerStep spans) is no recorded source;
// it only gives a breakdown to steps that have none.
inline constexpr std::string_view kStepSourceOrder = R"sql(CASE source
  WHEN 'step_trace_time' THEN 1 WHEN 'ProfilerStep' THEN 2 WHEN 'gpu_breakdown' THEN 3
  WHEN 'cluster_step_trace_time' THEN 4 ELSE 5 END)sql";

// stepsrc(source): the run's step source: of the recorded sources with a duration or a
// breakdown, the one on the most ranks. stepall(rank, step, d): one duration (ns) per rank and
// step of that source: the recorded duration (of any source for that rank and step), else the
// sum of its breakdown (computing + exposed communication + free, as step_trace_time's Stage
// column); stepmed(rank, med): each rank's median step (the upper one of an even count: of a
// 49 us stub beside one 9 ms step, the 9 ms one); stepdur(rank, step, d): stepall without the
// stub steps.
inline std::string step_ctes() {
  return R"sql(
stepsrc AS MATERIALIZED (
  SELECT source FROM recorded_steps
  WHERE run_id = ?1 AND (dur_ns > 0 OR computing_us IS NOT NULL
                         OR comm_not_overlapped_us IS NOT NULL OR free_us IS NOT NULL)
  GROUP BY source
  ORDER BY count(DISTINCT rank) DESC, )sql" +
         std::string(kStepSourceOrder) + R"sql(, source
  LIMIT 1),
stepall AS MATERIALIZED (
  SELECT rank, step, d FROM (
    SELECT rank, step, max(source = (SELECT source FROM stepsrc)) AS of_source,
      coalesce(max(CASE WHEN dur_ns > 0 THEN dur_ns END),
               max(CASE WHEN source = (SELECT source FROM stepsrc) THEN
                     1000.0 * (coalesce(computing_us, 0) + coalesce(comm_not_overlapped_us, 0)
                               + coalesce(free_us, 0)) END)) AS d
    FROM recorded_steps WHERE run_id = ?1 GROUP BY rank, step)
  WHERE of_source AND d > 0),
stepmed AS MATERIALIZED (
  SELECT rank, d AS med FROM (
    SELECT rank, d, row_number() OVER (PARTITION BY rank ORDER BY d) AS i,
      count(*) OVER (PARTITION BY rank) AS n FROM stepall) WHERE i = n / 2 + 1),
stepdur AS MATERIALIZED (
  SELECT s.rank, s.step, s.d FROM stepall s JOIN stepmed m ON m.rank = s.rank
  WHERE s.d >= 0.25 * m.med))sql";
}

}  // namespace perfsage::analyzers
