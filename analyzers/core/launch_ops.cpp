#include "analyzers/core/launch_ops.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <unordered_map>
#include <vector>

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

struct ThreadHash {
  size_t operator()(const Thread& t) const {
    return mix_ids(std::get<0>(t), mix_ids(std::get<1>(t), std::get<2>(t)));
  }
};

// Spans dealt into their threads, threads in (rank, pid, tid) order, each thread's spans by
// start (at one start the longer first), spans alike in both in the order given.
struct ThreadSpans {
  std::vector<Thread> threads;
  std::vector<size_t> offset;  // thread t's spans: [offset[t], offset[t + 1])
  std::vector<HostSpan> spans;
};

ThreadSpans by_thread(const std::vector<HostSpan>& spans) {
  std::unordered_map<Thread, uint32_t, ThreadHash> index;
  std::vector<Thread> seen;
  std::vector<uint32_t> thread(spans.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    // A thread's spans mostly follow each other: look up only where the thread changes.
    if (i > 0 && thread_of(spans[i]) == thread_of(spans[i - 1])) {
      thread[i] = thread[i - 1];
      continue;
    }
    auto [at, fresh] = index.try_emplace(thread_of(spans[i]), static_cast<uint32_t>(seen.size()));
    if (fresh) seen.push_back(at->first);
    thread[i] = at->second;
  }
  std::vector<uint32_t> order(seen.size());
  for (uint32_t t = 0; t < order.size(); ++t) order[t] = t;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return seen[a] < seen[b]; });
  std::vector<uint32_t> place(seen.size());  // seen index -> position in thread order
  ThreadSpans out;
  out.threads.reserve(seen.size());
  for (uint32_t p = 0; p < order.size(); ++p) {
    place[order[p]] = p;
    out.threads.push_back(seen[order[p]]);
  }
  out.offset.assign(seen.size() + 1, 0);
  for (uint32_t t : thread) ++out.offset[place[t] + 1];
  for (size_t t = 0; t < seen.size(); ++t) out.offset[t + 1] += out.offset[t];
  out.spans.resize(spans.size());
  std::vector<size_t> next(out.offset.begin(), out.offset.end() - 1);
  for (size_t i = 0; i < spans.size(); ++i) out.spans[next[place[thread[i]]]++] = spans[i];
  auto by_start = [](const HostSpan& a, const HostSpan& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  };
  for (size_t t = 0; t < seen.size(); ++t) {
    auto begin = out.spans.begin() + static_cast<std::ptrdiff_t>(out.offset[t]),
         end = out.spans.begin() + static_cast<std::ptrdiff_t>(out.offset[t + 1]);
    if (!std::is_sorted(begin, end, by_start)) std::stable_sort(begin, end, by_start);
  }
  return out;
}

}  // namespace

std::vector<LaunchLink> nest_launch_calls(const std::vector<HostSpan>& op_spans,
                                          const std::vector<HostSpan>& call_spans) {
  const ThreadSpans ops = by_thread(op_spans), calls = by_thread(call_spans);
  std::vector<LaunchLink> links;
  std::vector<const HostSpan*> open;  // ops containing the current position, innermost last
  size_t t_op = 0;
  for (size_t t_call = 0; t_call < calls.threads.size(); ++t_call) {
    const Thread& thread = calls.threads[t_call];
    while (t_op < ops.threads.size() && ops.threads[t_op] < thread) ++t_op;
    if (t_op == ops.threads.size() || ops.threads[t_op] != thread) continue;  // no ops there
    open.clear();
    const HostSpan* op = ops.spans.data() + ops.offset[t_op];
    const HostSpan* ops_end = ops.spans.data() + ops.offset[t_op + 1];
    for (size_t c = calls.offset[t_call]; c < calls.offset[t_call + 1]; ++c) {
      const HostSpan& call = calls.spans[c];
      // Every op starting at or before the call comes first (at one start, an op before it).
      for (; op != ops_end && op->start <= call.start; ++op) {
        while (!open.empty() && open.back()->end < op->start) open.pop_back();
        open.push_back(op);
      }
      while (!open.empty() && open.back()->end < call.start) open.pop_back();
      if (!open.empty()) links.push_back({call.rank, call.id, open.back()->id});
    }
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
