#include "analyzers/core/cpu_self_time.h"

#include <algorithm>
#include <compare>
#include <cstddef>
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

struct Span {
  int64_t start, end;
  uint32_t name;
};

// A thread's identity; pid and tid -1 when the trace gives none.
struct ThreadKey {
  int64_t rank, pid, tid;
  auto operator<=>(const ThreadKey&) const = default;
};

// Consecutive rows of one thread: [begin, end) of the spans as read.
struct Run {
  uint32_t thread;
  size_t begin, end;
};

struct ReadOps {
  std::vector<Span> spans;         // in trace order
  std::vector<Run> runs;           // in trace order
  std::vector<ThreadKey> threads;  // in order of first appearance
};

// Every CPU op of the run; names interned once per block dictionary entry (every entry is some
// row's value).
ReadOps read_cpu_ops(store::Database& db, int64_t run_id, store::TextIds& names) {
  const auto& schema = store::host_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_pid = col("pid"), c_tid = col("tid"), c_start = col("start_ns"),
            c_dur = col("dur_ns"), c_name = col("name");
  ReadOps out;
  out.spans.reserve(store::block_rows(db, schema, run_id, std::string("cpu_op")));
  std::map<ThreadKey, uint32_t> thread_ids;
  store::BlockScan scan(db, schema, run_id, std::string("cpu_op"),
                        {"rank", "pid", "tid", "start_ns", "dur_ns", "name"});
  std::vector<uint32_t> name_of;  // block dictionary index -> name id
  ThreadKey last{};
  while (scan.next()) {
    auto& b = scan.block();
    name_of.resize(b.dictionary_size(c_name));
    for (uint32_t i = 0; i < name_of.size(); ++i)
      name_of[i] = names.id(b.dictionary_text(c_name, i));
    for (size_t r = 0; r < b.rows(); ++r) {
      ThreadKey key{b.int_at(c_rank, r), b.is_null(c_pid, r) ? -1 : b.int_at(c_pid, r),
                    b.is_null(c_tid, r) ? -1 : b.int_at(c_tid, r)};
      if (out.runs.empty() || key != last) {
        auto [it, added] = thread_ids.try_emplace(key, static_cast<uint32_t>(out.threads.size()));
        if (added) out.threads.push_back(key);
        out.runs.push_back({it->second, out.spans.size(), out.spans.size()});
        last = key;
      }
      const int64_t start = b.int_at(c_start, r);
      out.spans.push_back({start, start + b.int_at(c_dur, r), name_of[b.text_index_at(c_name, r)]});
      ++out.runs.back().end;
    }
  }
  return out;
}

// One thread's spans in nesting order: by start, the longer (outer) op first at one start; ops
// with the same span in the trace's order (the profiler writes the outer one first). `ranges`
// of `base`, in that order.
struct ThreadSpans {
  const Span* base;
  std::vector<std::pair<size_t, size_t>> ranges;
};

bool before(const Span& a, const Span& b) {
  return a.start < b.start || (a.start == b.start && a.end > b.end);
}

// The spans of thread `runs` in nesting order: in place when the trace has them in that order
// already (the profiler writes a thread's ops by start), else copied into `sorted` and sorted
// there, ties kept in trace order.
ThreadSpans in_nesting_order(const std::vector<Span>& spans, const std::vector<const Run*>& runs,
                             std::vector<Span>& sorted) {
  ThreadSpans t{spans.data(), {}};
  const Span* prev = nullptr;
  bool in_order = true;
  for (const Run* run : runs) {
    t.ranges.emplace_back(run->begin, run->end);
    for (size_t i = run->begin; i < run->end && in_order; ++i) {
      in_order = prev == nullptr || !before(spans[i], *prev);
      prev = &spans[i];
    }
  }
  if (in_order) return t;
  sorted.clear();
  for (const Run* run : runs)
    sorted.insert(sorted.end(), spans.begin() + static_cast<std::ptrdiff_t>(run->begin),
                  spans.begin() + static_cast<std::ptrdiff_t>(run->end));
  std::stable_sort(sorted.begin(), sorted.end(), before);
  return {sorted.data(), {{0, sorted.size()}}};
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
  ReadOps read = read_cpu_ops(db, run_id, names);
  if (read.spans.empty()) {
    write_host_op_totals(db, run_id, kind_totals);
    return 0;
  }
  // Per rank (the threads in (rank, pid, tid) order): each rank's names in name order, so that
  // a rank's rows do not depend on which other ranks the run holds.
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
  std::vector<std::vector<const Run*>> runs_of(read.threads.size());
  for (const Run& run : read.runs) runs_of[run.thread].push_back(&run);
  std::vector<uint32_t> order(read.threads.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return read.threads[a] < read.threads[b]; });
  // The ops containing the current position, innermost last, with the summed duration of the
  // ops directly inside each: an op's self time is known when it closes.
  struct Open {
    size_t index;
    int64_t children;
  };
  std::vector<Open> open;
  auto close = [&](const ThreadSpans& t, std::vector<Open>& ops) {
    const Span& s = t.base[ops.back().index];
    self[s.name] += std::max<int64_t>(0, s.end - s.start - ops.back().children);
    ops.pop_back();
  };
  std::vector<Span> sorted;
  for (size_t k = 0; k < order.size(); ++k) {
    const int64_t rank = read.threads[order[k]].rank;
    if (k > 0 && rank != read.threads[order[k - 1]].rank) end_rank(read.threads[order[k - 1]].rank);
    const ThreadSpans t = in_nesting_order(read.spans, runs_of[order[k]], sorted);
    for (auto [begin, end] : t.ranges)
      for (size_t i = begin; i < end; ++i) {
        const Span& s = t.base[i];
        const int64_t dur = s.end - s.start;
        while (!open.empty() && t.base[open.back().index].end <= s.start) close(t, open);
        // An op that overlaps its neighbour without fitting inside it (clock skew, a truncated
        // trace, or start and duration rounded to microseconds separately) is not its child.
        if (!open.empty() && s.end <= t.base[open.back().index].end) open.back().children += dur;
        open.push_back({i, 0});
        if (count[s.name] == 0) seen.push_back(s.name);
        total[s.name] += dur;
        longest[s.name] = count[s.name] == 0 ? dur : std::max(longest[s.name], dur);
        ++count[s.name];
      }
    while (!open.empty()) close(t, open);
  }
  end_rank(read.threads[order.back()].rank);
  write_host_op_totals(db, run_id, kind_totals);
  store::RowInserter insert(db, tables::host_op_self());
  for (const SelfRow& r : self_rows)
    insert.insert(run_id, r.rank, names.text(r.name), r.count, r.total, r.self);
  return static_cast<int64_t>(names.size());
}

}  // namespace perfsage::analyzers
