#include "analyzers/core/cpu_self_time.h"

#include <algorithm>
#include <compare>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "analyzers/core/tables.h"
#include "store/bind.h"
#include "store/block_scan.h"
#include "store/text_ids.h"

namespace perfsage::analyzers {
namespace {

// A CPU op as read, in trace order; `thread` indexes the read's threads.
struct ReadOp {
  int64_t start, end;
  uint32_t name, thread;
};

// A thread's identity; pid and tid -1 when the trace gives none.
struct ThreadKey {
  int64_t rank, pid, tid;
  auto operator<=>(const ThreadKey&) const = default;
};

struct ReadOps {
  std::vector<ReadOp> ops;
  std::vector<ThreadKey> threads;  // in order of first appearance
};

// Every CPU op of the run; names interned once per block dictionary entry.
ReadOps read_cpu_ops(store::Database& db, int64_t run_id, store::TextIds& names) {
  const auto& schema = store::host_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_pid = col("pid"), c_tid = col("tid"), c_start = col("start_ns"),
            c_dur = col("dur_ns"), c_name = col("name");
  ReadOps out;
  out.ops.reserve(store::block_rows(db, schema, run_id, std::string("cpu_op")));
  std::map<ThreadKey, uint32_t> thread_ids;
  store::BlockScan scan(db, schema, run_id, std::string("cpu_op"),
                        {"rank", "pid", "tid", "start_ns", "dur_ns", "name"});
  store::BlockTextIds block_names(names, c_name);
  ThreadKey last{};
  uint32_t last_id = UINT32_MAX;  // the previous row's thread: rows of a thread come in runs
  while (scan.next()) {
    auto& b = scan.block();
    block_names.start_block(b);
    for (size_t r = 0; r < b.rows(); ++r) {
      ThreadKey key{b.int_at(c_rank, r), b.is_null(c_pid, r) ? -1 : b.int_at(c_pid, r),
                    b.is_null(c_tid, r) ? -1 : b.int_at(c_tid, r)};
      if (last_id == UINT32_MAX || key != last) {
        auto [it, added] = thread_ids.try_emplace(key, static_cast<uint32_t>(out.threads.size()));
        if (added) out.threads.push_back(key);
        last = key;
        last_id = it->second;
      }
      const int64_t start = b.int_at(c_start, r);
      out.ops.push_back({start, start + b.int_at(c_dur, r), block_names.at(b, r), last_id});
    }
  }
  return out;
}

struct Span {
  int64_t start, end;
  int64_t children;  // summed duration of the ops directly inside it
  uint32_t name;
};

// One thread's spans: [begin, end) of the thread-ordered spans.
struct Thread {
  int64_t rank;
  size_t begin, end;
};

// The spans grouped by thread in (rank, pid, tid) order, each thread's by start, the longer
// (outer) op first at one start; ops with the same span keep the trace's order (the profiler
// writes the outer one first). Grouping by a counting pass and sorting only the threads that
// are out of order moves 32-byte spans instead of stable-sorting every op by its thread key.
std::vector<Span> thread_spans(ReadOps read, std::vector<Thread>& threads) {
  std::vector<uint32_t> order(read.threads.size());  // thread rank -> read thread id
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return read.threads[a] < read.threads[b]; });
  std::vector<size_t> next(read.threads.size());  // read thread id -> its next slot
  for (const ReadOp& op : read.ops) ++next[op.thread];
  size_t at = 0;
  for (uint32_t id : order) {
    threads.push_back({read.threads[id].rank, at, at + next[id]});
    next[id] = at;
    at = threads.back().end;
  }
  std::vector<Span> spans(read.ops.size());
  for (const ReadOp& op : read.ops) spans[next[op.thread]++] = {op.start, op.end, 0, op.name};
  read.ops = {};
  auto before = [](const Span& a, const Span& b) {
    return a.start < b.start || (a.start == b.start && a.end > b.end);
  };
  for (const Thread& t : threads)
    if (!std::is_sorted(spans.begin() + t.begin, spans.begin() + t.end, before))
      std::stable_sort(spans.begin() + t.begin, spans.begin() + t.end, before);
  return spans;
}

// Adds each op's duration to the children time of the op directly containing it.
void nest(std::vector<Span>& spans, const std::vector<Thread>& threads) {
  std::vector<size_t> open;  // ops containing the current position, innermost last
  for (const Thread& t : threads) {
    open.clear();
    for (size_t i = t.begin; i < t.end; ++i) {
      const Span& s = spans[i];
      while (!open.empty() && spans[open.back()].end <= s.start) open.pop_back();
      // An op that overlaps its neighbour without fitting inside it (clock skew, a truncated
      // trace, or start and duration rounded to microseconds separately) is not its child.
      if (!open.empty() && s.end <= spans[open.back()].end)
        spans[open.back()].children += s.end - s.start;
      open.push_back(i);
    }
  }
}

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
  store::TextIds names;
  std::vector<Thread> threads;
  std::vector<Span> spans = thread_spans(read_cpu_ops(db, run_id, names), threads);
  if (spans.empty()) {
    write_host_op_totals(db, run_id, kind_totals);
    return 0;
  }
  nest(spans, threads);
  // Per rank (the threads are in rank order): each rank's names in name order, so that a rank's
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
              [&](uint32_t a, uint32_t b) { return names.text(a) < names.text(b); });
    for (uint32_t n : seen) {
      kind_totals[{rank, names.text(n), "cpu_op"}] = {count[n], total[n], longest[n]};
      self_rows.push_back({rank, n, count[n], total[n], self[n]});
      self[n] = total[n] = count[n] = longest[n] = 0;
    }
    seen.clear();
  };
  for (size_t t = 0; t < threads.size(); ++t) {
    if (t > 0 && threads[t].rank != threads[t - 1].rank) end_rank(threads[t - 1].rank);
    for (size_t i = threads[t].begin; i < threads[t].end; ++i) {
      const Span& s = spans[i];
      const int64_t dur = s.end - s.start;
      if (count[s.name] == 0) seen.push_back(s.name);
      self[s.name] += std::max<int64_t>(0, dur - s.children);
      total[s.name] += dur;
      longest[s.name] = count[s.name] == 0 ? dur : std::max(longest[s.name], dur);
      ++count[s.name];
    }
  }
  end_rank(threads.back().rank);
  write_host_op_totals(db, run_id, kind_totals);
  store::RowInserter insert(db, tables::host_op_self());
  for (const SelfRow& r : self_rows)
    insert.insert(run_id, r.rank, names.text(r.name), r.count, r.total, r.self);
  return static_cast<int64_t>(names.size());
}

}  // namespace perfsage::analyzers
