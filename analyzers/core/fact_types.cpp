#include "analyzers/core/fact_types.h"

#include <string>
#include <string_view>

#include "analyzers/core/step_ctes.h"

namespace perfsage::analyzers {
namespace {

// Shared CTEs: the run's wall span, total step time, and the base every estimated gain and
// share is stated on (docs/kb-authoring.md, "One base for gains and shares"): one rank's mean
// step when steps with durations exist, else the run's wall span. `units` is how many base
// units the run's totals cover (steps per rank x ranks), so total / units is the amount per
// base. The span is the ranks' spans (rank_totals: their blocks' recorded bounds and the op
// tasks'), so that no fact reads the events.
constexpr std::string_view kCommon = R"sql(
span AS MATERIALIZED (
  SELECT min(first_ns) AS s, max(last_ns) AS e FROM rank_totals WHERE run_id = ?1),
{steps},
steptotal AS (SELECT sum(d) / 1000.0 AS us FROM stepdur),
rankstep AS (SELECT rank, count(*) AS n, avg(d) / 1000.0 AS mean FROM stepdur GROUP BY rank),
base AS MATERIALIZED (
  SELECT CASE WHEN n > 0 THEN 'step' WHEN wall > 0 THEN 'run' ELSE 'none' END AS kind,
    CASE WHEN n > 0 THEN mean ELSE coalesce(wall, 0.0) END AS us,
    CASE WHEN n > 0 THEN CAST(n AS REAL) / r ELSE 1.0 END AS steps,
    CASE WHEN n > 0 THEN r ELSE runranks END AS ranks,
    CASE WHEN n > 0 THEN CAST(n AS REAL) ELSE runranks END AS units
  FROM (SELECT (SELECT count(*) FROM stepdur) AS n,
          (SELECT count(DISTINCT rank) FROM stepdur) AS r,
          (SELECT avg(d) / 1000.0 FROM stepdur) AS mean,
          ((SELECT e FROM span) - (SELECT s FROM span)) / 1000.0 AS wall,
          max(1, coalesce((SELECT ranks FROM runs WHERE id = ?1),
                          (SELECT count(DISTINCT rank) FROM recorded_steps WHERE run_id = ?1), 1))
            AS runranks)),
reftime AS (SELECT us FROM base))sql";

}  // namespace

std::vector<store::FactType> fact_types() {
  std::vector<store::FactType> out;
  declare_run_facts(out);
  declare_op_facts(out);
  declare_gpu_facts(out);
  declare_gpu_host_facts(out);
  declare_gpu_range_facts(out);
  declare_graph_facts(out);
  declare_patterns_facts(out);
  declare_iteration_facts(out);
  declare_roofline_facts(out);
  for (auto& t : out) {
    auto pos = t.query.find("{common}");
    if (pos != std::string::npos) {
      std::string common(kCommon);
      common.replace(common.find("{steps}"), 7, step_ctes().substr(1));
      t.query.replace(pos, 8, common);
    }
  }
  return out;
}

}  // namespace perfsage::analyzers
