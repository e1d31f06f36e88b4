#include "analyzers/iteration/iteration.h"
#include "store/database.h"

namespace perfsage::analyzers::iteration {

void analyze_iteration(store::Database& db, int64_t run_id) {
  // Each step replaces its own rows, so re-analysing a run is idempotent.
  store::Transaction txn(db);
  compute_rank_balance(db, run_id);
  compute_gpu_activity(db, run_id);
  compute_schedule(db, run_id);
  txn.commit();
}

}  // namespace perfsage::analyzers::iteration
