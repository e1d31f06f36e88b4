// Per-rank step breakdown totals. msprof-analyze's slow-rank method compares, for each of
// Computing, Communication(Not Overlapped) and Free, the spread between ranks of the per-rank
// sums over steps against the mean per-rank total; the spreads themselves are computed in the
// `rank` fact query, this table holds the per-rank sums they are computed from.
#include <string>

#include "analyzers/core/step_ctes.h"
#include "analyzers/iteration/iteration.h"
#include "store/database.h"

namespace perfsage::analyzers::iteration {

void compute_rank_balance(store::Database& db, int64_t run_id) {
  db.prepare("DELETE FROM iteration_ranks WHERE run_id=?1").bind(1, run_id).run();
  // One source for every rank, on the run's steps (analyzers/core/step_ctes.h): the run's step
  // source when it has a breakdown, else the source with a breakdown on the most ranks (the GPU
  // breakdown of ProfilerStep spans). A rank's breakdown from another source than the others'
  // (one rank's trace_view.json beside a cluster_step_trace_time.csv of all) compared unlike
  // with like. A step's duration is the base's (stepdur), so the iteration fact's step is the
  // run's base step; stub steps are left out as in every mean over steps. A rank without
  // recorded steps keeps its breakdown's own windows (the GPU breakdown of a trace without
  // ProfilerStep spans is one window over the whole trace).
  db.prepare("WITH " + step_ctes() + R"sql(,
src AS (
  SELECT source, count(DISTINCT rank) AS ranks, )sql" +
             std::string(kStepSourceOrder) + R"sql( AS pref
  FROM steps
  WHERE run_id = ?1 AND (computing_us IS NOT NULL OR free_us IS NOT NULL
                         OR comm_not_overlapped_us IS NOT NULL)
  GROUP BY source),
pick AS (SELECT source FROM src
         ORDER BY source = (SELECT source FROM stepsrc) DESC, ranks DESC, pref, source LIMIT 1)
INSERT INTO iteration_ranks(run_id, rank, source, steps, dur_us, computing_us, comm_us,
  comm_not_overlapped_us, overlapped_us, free_us, dataloader_us, optimizer_us)
SELECT ?1, s.rank, s.source, count(*), sum(coalesce(d.d, s.dur_ns)) / 1000.0,
  coalesce(sum(s.computing_us), 0), coalesce(sum(s.comm_us), 0),
  coalesce(sum(s.comm_not_overlapped_us), 0), coalesce(sum(s.overlapped_us), 0),
  coalesce(sum(s.free_us), 0), coalesce(sum(s.dataloader_us), 0),
  coalesce(sum(s.optimizer_us), 0)
FROM steps s LEFT JOIN stepdur d ON d.rank = s.rank AND d.step = s.step
LEFT JOIN stepmed m ON m.rank = s.rank
WHERE s.run_id = ?1 AND s.source = (SELECT source FROM pick)
  AND (d.d IS NOT NULL OR m.med IS NULL)
GROUP BY s.rank, s.source)sql")
      .bind(1, run_id)
      .run();
}

}  // namespace perfsage::analyzers::iteration
