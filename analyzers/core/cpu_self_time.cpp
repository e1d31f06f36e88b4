#include "analyzers/core/cpu_self_time.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzers/core/tables.h"
#include "store/bind.h"
#include "store/block_scan.h"

namespace perfsage::analyzers {
namespace {

struct Span {
  int64_t rank, pid, tid, start, end;
  uint32_t name;
  int64_t children = 0;  // summed duration of the ops directly inside it
};

}  // namespace

namespace {

struct KindTotal {
  int64_t count = 0, dur_ns = 0, max_ns = 0;
};
using KindTotals = std::map<std::pair<std::string, std::string>, KindTotal>;

// Host annotations, gc and queue events per name (a few thousand rows at most): read plainly.
void add_kind_totals(store::Database& db, int64_t run_id, const char* kind, KindTotals& out) {
  const auto& schema = store::host_event_schema();
  const int c_name = store::column_index(schema, "name"),
            c_dur = store::column_index(schema, "dur_ns");
  store::BlockScan scan(db, schema, run_id, std::string(kind), {"name", "dur_ns"});
  while (scan.next()) {
    auto& b = scan.block();
    for (size_t r = 0; r < b.rows(); ++r) {
      KindTotal& t = out[{std::string(b.text_at(c_name, r)), kind}];
      int64_t dur = b.int_at(c_dur, r);
      t.max_ns = t.count == 0 ? dur : std::max(t.max_ns, dur);
      ++t.count;
      t.dur_ns += dur;
    }
  }
}

// host_op_totals in (name, kind) order, the order SQL's GROUP BY name, kind gave the host_op
// fact when it grouped the events itself (ties of its ORDER BY keep it).
void write_host_op_totals(store::Database& db, int64_t run_id, KindTotals& totals) {
  for (const char* kind : {"user_annotation", "gc", "queue"})
    add_kind_totals(db, run_id, kind, totals);
  store::RowInserter insert(db, tables::host_op_totals());
  for (const auto& [key, t] : totals)
    insert.insert(run_id, key.first, key.second, t.count, t.dur_ns, t.max_ns);
}

}  // namespace

int64_t compute_cpu_self_time(store::Database& db, int64_t run_id) {
  db.prepare("DELETE FROM host_op_self WHERE run_id = ?1").bind(1, run_id).run();
  db.prepare("DELETE FROM host_op_totals WHERE run_id = ?1").bind(1, run_id).run();
  KindTotals kind_totals;
  const auto& schema = store::host_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_pid = col("pid"), c_tid = col("tid"), c_start = col("start_ns"),
            c_dur = col("dur_ns"), c_name = col("name");
  std::vector<Span> spans;
  std::vector<std::string> names;
  std::unordered_map<std::string, uint32_t> ids;
  store::BlockScan scan(db, schema, run_id, std::string("cpu_op"),
                        {"rank", "pid", "tid", "start_ns", "dur_ns", "name"});
  while (scan.next()) {
    auto& b = scan.block();
    for (size_t r = 0; r < b.rows(); ++r) {
      std::string name(b.text_at(c_name, r));
      auto [it, added] = ids.try_emplace(name, static_cast<uint32_t>(names.size()));
      if (added) names.push_back(std::move(name));
      int64_t start = b.int_at(c_start, r);
      spans.push_back({b.int_at(c_rank, r), b.is_null(c_pid, r) ? -1 : b.int_at(c_pid, r),
                       b.is_null(c_tid, r) ? -1 : b.int_at(c_tid, r), start,
                       start + b.int_at(c_dur, r), it->second});
    }
  }
  if (spans.empty()) {
    write_host_op_totals(db, run_id, kind_totals);
    return 0;
  }
  // Per thread by start, the longer (outer) op first at one start; ops with the same span
  // keep the trace's order (the profiler writes the outer one first).
  std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return std::tie(a.rank, a.pid, a.tid, a.start, b.end) <
           std::tie(b.rank, b.pid, b.tid, b.start, a.end);
  });
  std::vector<size_t> open;  // ops containing the current position, innermost last
  for (size_t i = 0; i < spans.size(); ++i) {
    Span& s = spans[i];
    if (i > 0 && std::tie(s.rank, s.pid, s.tid) !=
                     std::tie(spans[i - 1].rank, spans[i - 1].pid, spans[i - 1].tid))
      open.clear();
    while (!open.empty() && spans[open.back()].end <= s.start) open.pop_back();
    // An op that overlaps its neighbour without fitting inside it (clock skew, a truncated
    // trace, or start and duration rounded to microseconds separately) is not its child.
    if (!open.empty() && s.end <= spans[open.back()].end)
      spans[open.back()].children += s.end - s.start;
    open.push_back(i);
  }
  std::vector<int64_t> self(names.size()), total(names.size()), count(names.size()),
      longest(names.size());
  for (const auto& s : spans) {
    self[s.name] += std::max<int64_t>(0, s.end - s.start - s.children);
    total[s.name] += s.end - s.start;
    longest[s.name] =
        count[s.name] == 0 ? s.end - s.start : std::max(longest[s.name], s.end - s.start);
    ++count[s.name];
  }
  for (size_t n = 0; n < names.size(); ++n)
    kind_totals[{names[n], "cpu_op"}] = {count[n], total[n], longest[n]};
  write_host_op_totals(db, run_id, kind_totals);
  store::RowInserter insert(db, tables::host_op_self());
  for (size_t n = 0; n < names.size(); ++n)
    insert.insert(run_id, names[n], count[n], total[n], self[n]);
  return static_cast<int64_t>(names.size());
}

}  // namespace perfsage::analyzers
