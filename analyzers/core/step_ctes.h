// The one definition of a run's steps as every mean over steps reads them (the run fact's base,
// the run totals, the per-rank breakdown): CTEs over recorded_steps of run ?1, to put after
// WITH. A stub step (under a quarter of its rank's median step: cut short by the end of
// profiling) is left out of every mean; the run fact counts such steps (stub_steps).
#pragma once

#include <string_view>

namespace perfsage::analyzers {

// stepall(rank, step, d): one duration (ns) per rank and step, whatever number of sources
// recorded it; stepmed(rank, med): each rank's median step (the upper one of an even count: of
// a 49 us stub beside one 9 ms step, the 9 ms one); stepdur(rank, step, d): stepall without
// the stub steps.
inline constexpr std::string_view kStepCtes = R"sql(
stepall AS MATERIALIZED (
  SELECT rank, step, max(dur_ns) AS d FROM recorded_steps
  WHERE run_id = ?1 AND dur_ns > 0 GROUP BY rank, step),
stepmed AS MATERIALIZED (
  SELECT rank, d AS med FROM (
    SELECT rank, d, row_number() OVER (PARTITION BY rank ORDER BY d) AS i,
      count(*) OVER (PARTITION BY rank) AS n FROM stepall) WHERE i = n / 2 + 1),
stepdur AS MATERIALIZED (
  SELECT s.rank, s.step, s.d FROM stepall s JOIN stepmed m ON m.rank = s.rank
  WHERE s.d >= 0.25 * m.med))sql";

}  // namespace perfsage::analyzers
