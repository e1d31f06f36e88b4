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
  // One source per rank: the most detailed one present with a breakdown (a rank can carry
  // both ProfilerStep rows from trace_view.json and step_trace_time.csv rows of the same steps).
  // Stub steps are left out as in every mean over steps (analyzers/core/step_ctes.h).
  db.prepare("WITH " + std::string(kStepCtes) + R"sql(,
src AS (
  SELECT rank, source, count(*) AS n,
    CASE source WHEN 'step_trace_time' THEN 1 WHEN 'ProfilerStep' THEN 2
                WHEN 'gpu_breakdown' THEN 3 WHEN 'cluster_step_trace_time' THEN 4 ELSE 5 END AS pref
  FROM steps
  WHERE run_id = ?1 AND (computing_us IS NOT NULL OR free_us IS NOT NULL
                         OR comm_not_overlapped_us IS NOT NULL)
  GROUP BY rank, source),
pick AS (SELECT rank, source FROM src s
         WHERE NOT EXISTS (SELECT 1 FROM src t WHERE t.rank = s.rank
                           AND (t.pref < s.pref OR (t.pref = s.pref AND t.source < s.source))))
INSERT INTO iteration_ranks(run_id, rank, source, steps, dur_us, computing_us, comm_us,
  comm_not_overlapped_us, overlapped_us, free_us, dataloader_us, optimizer_us)
SELECT ?1, s.rank, s.source, count(*),
  sum(s.dur_ns) / 1000.0,
  coalesce(sum(s.computing_us), 0), coalesce(sum(s.comm_us), 0),
  coalesce(sum(s.comm_not_overlapped_us), 0), coalesce(sum(s.overlapped_us), 0),
  coalesce(sum(s.free_us), 0), coalesce(sum(s.dataloader_us), 0),
  coalesce(sum(s.optimizer_us), 0)
FROM steps s JOIN pick p ON p.rank = s.rank AND p.source = s.source
LEFT JOIN stepmed m ON m.rank = s.rank
WHERE s.run_id = ?1 AND (s.dur_ns IS NULL OR m.med IS NULL OR s.dur_ns >= 0.25 * m.med)
GROUP BY s.rank, s.source)sql")
      .bind(1, run_id)
      .run();
}

}  // namespace perfsage::analyzers::iteration
