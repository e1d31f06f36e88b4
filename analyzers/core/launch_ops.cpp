#include "analyzers/core/launch_ops.h"

#include <algorithm>
#include <tuple>

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

std::vector<LaunchLink> nest_launch_calls(std::vector<HostSpan>& spans) {
  // Per thread by start; at one start an op before a call, the longer op first (the outer).
  std::sort(spans.begin(), spans.end(), [](const HostSpan& a, const HostSpan& b) {
    return std::tie(a.rank, a.pid, a.tid, a.start, a.call, b.end) <
           std::tie(b.rank, b.pid, b.tid, b.start, b.call, a.end);
  });
  std::vector<LaunchLink> links;
  std::vector<const HostSpan*> open;  // ops containing the current position, innermost last
  const HostSpan* thread = nullptr;
  for (const HostSpan& s : spans) {
    if (thread == nullptr ||
        std::tie(s.rank, s.pid, s.tid) != std::tie(thread->rank, thread->pid, thread->tid)) {
      open.clear();
      thread = &s;
    }
    while (!open.empty() && open.back()->end < s.start) open.pop_back();
    if (!s.call)
      open.push_back(&s);
    else if (!open.empty())
      links.push_back({s.rank, s.id, open.back()->id});
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
