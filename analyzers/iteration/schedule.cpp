// Host-side schedule statistics per rank from AscendCL/CANN API spans (msprof-analyze's
// schedule checkers): on-line compilation (aclopCompileAndExecute, opCompile), stream
// synchronisation and how often it directly follows a Node@launch (the launch-blocking
// co-occurrence ratio), and memory-management API time.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "analyzers/iteration/iteration.h"
#include "analyzers/iteration/tables.h"
#include "store/block_scan.h"
#include "store/database.h"
#include "store/text_ids.h"

namespace perfsage::analyzers::iteration {
namespace {

struct RankSchedule {
  int64_t compile_execute_calls = 0, op_compile_calls = 0, sync_calls = 0, launch_calls = 0;
  int64_t sync_after_launch = 0, memory_calls = 0;
  double compile_execute_us = 0, op_compile_us = 0, sync_us = 0, memory_us = 0;
  bool last_was_launch = false;  // previous sync-or-launch event in time order was a launch
  bool any = false;
};

// What a call counts as; by its name alone, so decided once per distinct name of a block.
enum class CallClass : uint8_t { none, compile_execute, op_compile, sync, launch, memory };

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

CallClass classify(std::string_view name) {
  if (contains(name, "aclopCompileAndExecute")) return CallClass::compile_execute;
  if (contains(name, "opCompile")) return CallClass::op_compile;
  // Prefix match, as msprof-analyze: ...SynchronizeStreamWithTimeout counts too.
  if (name.rfind("AscendCL@aclrtSynchronizeStream", 0) == 0) return CallClass::sync;
  if (name == "Node@launch") return CallClass::launch;
  if (name.rfind("AscendCL@", 0) == 0 && (contains(name, "Malloc") || contains(name, "aclrtFree")))
    return CallClass::memory;
  return CallClass::none;
}

void add(RankSchedule& r, CallClass c, double us) {
  switch (c) {
    case CallClass::none:
      return;
    case CallClass::compile_execute:
      ++r.compile_execute_calls;
      r.compile_execute_us += us;
      break;
    case CallClass::op_compile:
      ++r.op_compile_calls;
      r.op_compile_us += us;
      break;
    case CallClass::sync:
      ++r.sync_calls;
      r.sync_us += us;
      if (r.last_was_launch) ++r.sync_after_launch;
      r.last_was_launch = false;
      break;
    case CallClass::launch:
      ++r.launch_calls;
      r.last_was_launch = true;
      break;
    case CallClass::memory:
      ++r.memory_calls;
      r.memory_us += us;
      break;
  }
  r.any = true;
}

struct Call {
  int64_t rank, start, row;
  int64_t dur;
  CallClass call;
};

// The API, runtime and driver calls that count for the schedule, from the event blocks: a
// Kineto trace's million CUDA calls are only named, none kept.
std::vector<Call> read_calls(store::Database& db, int64_t run_id) {
  const auto& schema = store::host_event_schema();
  const int c_rank = store::column_index(schema, "rank"),
            c_start = store::column_index(schema, "start_ns"),
            c_name = store::column_index(schema, "name"),
            c_dur = store::column_index(schema, "dur_ns");
  std::vector<Call> calls;
  store::BlockTextValues<CallClass> classes(c_name);
  for (const char* kind : {"api", "runtime", "driver"}) {
    store::BlockScan scan(db, schema, run_id, std::string(kind),
                          {"rank", "start_ns", "name", "dur_ns"});
    while (scan.next()) {
      auto& b = scan.block();
      if (b.all_null(c_name)) continue;
      classes.start_block();
      for (size_t r = 0; r < b.rows(); ++r) {
        if (b.is_null(c_name, r)) continue;
        CallClass c = classes.at(b, r, classify);
        if (c == CallClass::none) continue;
        auto int_or_0 = [&](int col) { return b.is_null(col, r) ? 0 : b.int_at(col, r); };
        calls.push_back({int_or_0(c_rank), int_or_0(c_start), scan.rowid(r), int_or_0(c_dur), c});
      }
    }
  }
  return calls;
}

}  // namespace

void compute_schedule(store::Database& db, int64_t run_id) {
  db.prepare("DELETE FROM iteration_schedule WHERE run_id=?1").bind(1, run_id).run();
  std::map<int64_t, RankSchedule> ranks;
  // Time order per rank matters (a sync right after a launch); ties in row order.
  std::vector<Call> calls = read_calls(db, run_id);
  std::sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) {
    return std::tie(a.rank, a.start, a.row) < std::tie(b.rank, b.start, b.row);
  });
  for (const auto& c : calls) add(ranks[c.rank], c.call, static_cast<double>(c.dur) / 1000.0);
  store::RowInserter ins(db, tables::schedule());
  for (const auto& [rank, r] : ranks) {
    if (!r.any) continue;
    ins.insert(run_id, rank, r.compile_execute_calls, r.compile_execute_us, r.op_compile_calls,
               r.op_compile_us, r.sync_calls, r.sync_us, r.launch_calls, r.sync_after_launch,
               r.memory_calls, r.memory_us);
  }
}

}  // namespace perfsage::analyzers::iteration
