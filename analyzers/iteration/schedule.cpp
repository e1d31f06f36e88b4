// Host-side schedule statistics per rank from AscendCL/CANN API spans (msprof-analyze's
// schedule checkers): on-line compilation (aclopCompileAndExecute, opCompile), stream
// synchronisation and how often it directly follows a Node@launch (the launch-blocking
// co-occurrence ratio), and memory-management API time.
#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "analyzers/iteration/iteration.h"
#include "analyzers/iteration/tables.h"
#include "store/database.h"
#include "store/text_hash.h"

namespace perfsage::analyzers::iteration {
namespace {

struct RankSchedule {
  int64_t compile_execute_calls = 0, op_compile_calls = 0, sync_calls = 0, launch_calls = 0;
  int64_t sync_after_launch = 0, memory_calls = 0;
  double compile_execute_us = 0, op_compile_us = 0, sync_us = 0, memory_us = 0;
  bool last_was_launch = false;  // previous sync-or-launch event in time order was a launch
  bool any = false;
};

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

void add(RankSchedule& r, std::string_view name, double us) {
  if (contains(name, "aclopCompileAndExecute")) {
    ++r.compile_execute_calls;
    r.compile_execute_us += us;
    r.any = true;
  } else if (contains(name, "opCompile")) {
    ++r.op_compile_calls;
    r.op_compile_us += us;
    r.any = true;
  } else if (name.rfind("AscendCL@aclrtSynchronizeStream", 0) == 0) {
    // Prefix match, as msprof-analyze: ...SynchronizeStreamWithTimeout counts too.
    ++r.sync_calls;
    r.sync_us += us;
    if (r.last_was_launch) ++r.sync_after_launch;
    r.last_was_launch = false;
    r.any = true;
  } else if (name == "Node@launch") {
    ++r.launch_calls;
    r.last_was_launch = true;
    r.any = true;
  } else if (name.rfind("AscendCL@", 0) == 0 &&
             (contains(name, "Malloc") || contains(name, "aclrtFree"))) {
    ++r.memory_calls;
    r.memory_us += us;
    r.any = true;
  }
}

}  // namespace

void compute_schedule(store::Database& db, int64_t run_id) {
  db.prepare("DELETE FROM iteration_schedule WHERE run_id=?1").bind(1, run_id).run();
  std::map<int64_t, RankSchedule> ranks;
  // Time order per rank matters (a sync right after a launch). Sorted here over interned names
  // rather than by ORDER BY, whose sorter copied each of the million API calls per GB of trace.
  auto q = db.prepare(
      "SELECT rank, start_ns, name, dur_ns FROM host_events WHERE run_id=?1 "
      "AND kind IN ('api','runtime','driver')");
  q.bind(1, run_id);
  struct Call {
    int64_t rank, start;
    const std::string* name;
    int64_t dur;
  };
  std::unordered_set<std::string, store::TextHash, std::equal_to<>> names;
  std::vector<Call> calls;
  while (q.step()) {
    std::string_view name = q.text_view(2);
    auto it = names.find(name);
    if (it == names.end()) it = names.emplace(name).first;
    calls.push_back({q.int64(0), q.int64(1), &*it, q.int64(3)});
  }
  std::stable_sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.start < b.start;
  });
  for (const auto& c : calls) add(ranks[c.rank], *c.name, static_cast<double>(c.dur) / 1000.0);
  store::RowInserter ins(db, tables::schedule());
  for (const auto& [rank, r] : ranks) {
    if (!r.any) continue;
    ins.insert(run_id, rank, r.compile_execute_calls, r.compile_execute_us, r.op_compile_calls,
               r.op_compile_us, r.sync_calls, r.sync_us, r.launch_calls, r.sync_after_launch,
               r.memory_calls, r.memory_us);
  }
}

}  // namespace perfsage::analyzers::iteration
