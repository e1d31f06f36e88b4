#include "analyzers/core/launch_ops.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "analyzers/core/stream_sort.h"
#include "store/batch_insert.h"

namespace perfsage::analyzers {

const store::DerivedTable& kernel_launch_ops_table() {
  static const store::DerivedTable t{
      "kernel_launch_ops",
      "The framework op that launched each GPU activity of traces without the op on the "
      "activity (analyzers/core/launch_ops.cpp): the innermost CPU op enclosing the launch "
      "call.",
      {store::integer("rank", "", "rank (process) of the trace"),
       store::integer("correlation", "", "correlation id of the launch call and its activity"),
       store::integer("op_external_id", "", "external id of the enclosing CPU op")},
      {"run_id"}};
  return t;
}

namespace {

using Thread = std::tuple<int64_t, int64_t, int64_t>;  // rank, pid, tid

Thread thread_of(const HostSpan& s) {
  return {s.rank, s.pid, s.tid};
}

// By start, the longer first at one start.
bool by_start(const HostSpan& a, const HostSpan& b) {
  return a.start != b.start ? a.start < b.start : a.end > b.end;
}

// The end of the thread's spans that begin at `i`.
size_t thread_end(const std::vector<HostSpan>& spans, size_t i) {
  const Thread thread = thread_of(spans[i]);
  while (i < spans.size() && thread_of(spans[i]) == thread) ++i;
  return i;
}

}  // namespace

std::vector<LaunchLink> nest_launch_calls(std::vector<HostSpan> ops, std::vector<HostSpan> calls) {
  // Each thread's spans together, threads in order, each by start; alike spans in the order given.
  sort_by_stream(ops, thread_of, by_start);
  sort_by_stream(calls, thread_of, by_start);
  std::vector<LaunchLink> links;
  std::vector<const HostSpan*> open;  // ops containing the current position, innermost last
  size_t o = 0;
  for (size_t c = 0; c < calls.size();) {
    const Thread thread = thread_of(calls[c]);
    const size_t calls_end = thread_end(calls, c);
    while (o < ops.size() && thread_of(ops[o]) < thread) ++o;
    const size_t ops_end = o < ops.size() && thread_of(ops[o]) == thread ? thread_end(ops, o) : o;
    open.clear();
    for (; c < calls_end; ++c) {
      const HostSpan& call = calls[c];
      // Every op starting at or before the call comes first (at one start, an op before it).
      for (; o < ops_end && ops[o].start <= call.start; ++o) {
        while (!open.empty() && open.back()->end < ops[o].start) open.pop_back();
        open.push_back(&ops[o]);
      }
      while (!open.empty() && open.back()->end < call.start) open.pop_back();
      if (!open.empty()) links.push_back({call.rank, call.id, open.back()->id});
    }
    o = ops_end;
  }
  return links;
}

void write_launch_ops(store::Database& db, int64_t run_id, const std::vector<LaunchLink>& links) {
  db.prepare("DELETE FROM kernel_launch_ops WHERE run_id = ?1").bind(1, run_id).run();
  store::BatchInsert insert(db, "kernel_launch_ops",
                            {"run_id", "rank", "correlation", "op_external_id"});
  for (const LaunchLink& l : links) {
    insert.bind(run_id);
    insert.bind(l.rank);
    insert.bind(l.correlation);
    insert.bind(l.op_external_id);
    insert.end_row();
  }
  insert.finish();
}

}  // namespace perfsage::analyzers
