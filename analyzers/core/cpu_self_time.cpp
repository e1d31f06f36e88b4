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
// (rank, name, kind) -> totals. Per rank, so that a cluster run's rows are the union of its
// ranks' rows, whichever process analysed each rank (docs/scale-out.md).
using KindTotals = std::map<std::tuple<int64_t, std::string, std::string>, KindTotal>;

// Host annotations, gc and queue events per name (a few thousand rows at most): read plainly.
void add_kind_totals(store::Database& db, int64_t run_id, const char* kind, KindTotals& out) {
  const auto& schema = store::host_event_schema();
  const int c_rank = store::column_index(schema, "rank"),
            c_name = store::column_index(schema, "name"),
            c_dur = store::column_index(schema, "dur_ns");
  store::BlockScan scan(db, schema, run_id, std::string(kind), {"rank", "name", "dur_ns"});
  while (scan.next()) {
    auto& b = scan.block();
    for (size_t r = 0; r < b.rows(); ++r) {
      KindTotal& t = out[{b.int_at(c_rank, r), std::string(b.text_at(c_name, r)), kind}];
      int64_t dur = b.int_at(c_dur, r);
      t.max_ns = t.count == 0 ? dur : std::max(t.max_ns, dur);
      ++t.count;
      t.dur_ns += dur;
    }
  }
}

// host_op_totals in (rank, name, kind) order.
void write_host_op_totals(store::Database& db, int64_t run_id, KindTotals& totals) {
  for (const char* kind : {"user_annotation", "gc", "queue"})
    add_kind_totals(db, run_id, kind, totals);
  store::RowInserter insert(db, tables::host_op_totals());
  for (const auto& [key, t] : totals)
    insert.insert(run_id, std::get<0>(key), std::get<1>(key), std::get<2>(key), t.count, t.dur_ns,
                  t.max_ns);
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
  // Per rank (the spans are sorted by rank): each rank's names in name order, so that a rank's
  // rows do not depend on which other ranks the run holds.
  std::vector<int64_t> self(names.size()), total(names.size()), count(names.size()),
      longest(names.size());
  std::vector<uint32_t> seen;  // the names of the current rank
  struct SelfRow {
    int64_t rank;
    uint32_t name;
    int64_t count, total, self;
  };
  std::vector<SelfRow> self_rows;
  auto end_rank = [&](int64_t rank) {
    std::sort(seen.begin(), seen.end(),
              [&](uint32_t a, uint32_t b) { return names[a] < names[b]; });
    for (uint32_t n : seen) {
      kind_totals[{rank, names[n], "cpu_op"}] = {count[n], total[n], longest[n]};
      self_rows.push_back({rank, n, count[n], total[n], self[n]});
      self[n] = total[n] = count[n] = longest[n] = 0;
    }
    seen.clear();
  };
  for (size_t i = 0; i < spans.size(); ++i) {
    const Span& s = spans[i];
    if (i > 0 && s.rank != spans[i - 1].rank) end_rank(spans[i - 1].rank);
    if (count[s.name] == 0) seen.push_back(s.name);
    self[s.name] += std::max<int64_t>(0, s.end - s.start - s.children);
    total[s.name] += s.end - s.start;
    longest[s.name] =
        count[s.name] == 0 ? s.end - s.start : std::max(longest[s.name], s.end - s.start);
    ++count[s.name];
  }
  end_rank(spans.back().rank);
  write_host_op_totals(db, run_id, kind_totals);
  store::RowInserter insert(db, tables::host_op_self());
  for (const SelfRow& r : self_rows)
    insert.insert(run_id, r.rank, names[r.name], r.count, r.total, r.self);
  return static_cast<int64_t>(names.size());
}

}  // namespace perfsage::analyzers
