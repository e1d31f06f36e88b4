#include "analyzers/core/launch_ops.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "store/bind.h"
#include "store/block_scan.h"

namespace perfsage::analyzers {
namespace {

struct Span {
  int64_t rank, pid, tid, start, end, id;  // id: the op's External id, or the call's correlation
  bool call;
};

// Host events of one kind with the columns the nesting needs, straight from the blocks; calls
// only when a kernel waits for their correlation.
void load(store::Database& db, int64_t run_id, const char* kind, bool call,
          const std::unordered_set<int64_t>& wanted, std::vector<Span>& out) {
  const auto& schema = store::host_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_pid = col("pid"), c_tid = col("tid"), c_start = col("start_ns"),
            c_dur = col("dur_ns"), c_id = col(call ? "correlation" : "external_id");
  store::BlockScan scan(
      db, schema, run_id, std::string(kind),
      {"rank", "pid", "tid", "start_ns", "dur_ns", call ? "correlation" : "external_id"});
  while (scan.next()) {
    auto& b = scan.block();
    for (size_t r = 0; r < b.rows(); ++r) {
      if (b.is_null(c_id, r) || (call && !wanted.count(b.int_at(c_id, r)))) continue;
      int64_t start = b.int_at(c_start, r);
      out.push_back({b.int_at(c_rank, r), b.is_null(c_pid, r) ? -1 : b.int_at(c_pid, r),
                     b.is_null(c_tid, r) ? -1 : b.int_at(c_tid, r), start,
                     start + b.int_at(c_dur, r), b.int_at(c_id, r), call});
    }
  }
}

}  // namespace

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

int64_t compute_launch_ops(store::Database& db, int64_t run_id) {
  db.prepare("DELETE FROM kernel_launch_ops WHERE run_id = ?1").bind(1, run_id).run();
  // Only kernels that name their correlation id as External id need this.
  std::unordered_set<int64_t> wanted;
  {
    const auto& schema = store::device_event_schema();
    const int c_ext = store::column_index(schema, "external_id"),
              c_corr = store::column_index(schema, "correlation");
    store::BlockScan kernels(db, schema, run_id, std::string("kernel"),
                             {"external_id", "correlation"});
    while (kernels.next()) {
      auto& b = kernels.block();
      if (b.all_null(c_ext) || b.all_null(c_corr)) continue;
      for (size_t r = 0; r < b.rows(); ++r)
        if (!b.is_null(c_ext, r) && !b.is_null(c_corr, r) &&
            b.int_at(c_ext, r) == b.int_at(c_corr, r))
          wanted.insert(b.int_at(c_corr, r));
    }
  }
  if (wanted.empty()) return 0;
  std::vector<Span> spans;
  load(db, run_id, "cpu_op", false, wanted, spans);
  load(db, run_id, "runtime", true, wanted, spans);
  // Per thread by start; at one start an op before a call, the longer op first (the outer).
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return std::tie(a.rank, a.pid, a.tid, a.start, a.call, b.end) <
           std::tie(b.rank, b.pid, b.tid, b.start, b.call, a.end);
  });
  store::RowInserter insert(db, kernel_launch_ops_table());
  std::vector<const Span*> open;  // ops containing the current position, innermost last
  const Span* thread = nullptr;
  int64_t resolved = 0;
  for (const Span& s : spans) {
    if (thread == nullptr ||
        std::tie(s.rank, s.pid, s.tid) != std::tie(thread->rank, thread->pid, thread->tid)) {
      open.clear();
      thread = &s;
    }
    while (!open.empty() && open.back()->end < s.start) open.pop_back();
    if (!s.call) {
      open.push_back(&s);
    } else if (!open.empty()) {
      insert.insert(run_id, s.rank, s.id, open.back()->id);
      ++resolved;
    }
  }
  return resolved;
}

LaunchingOps load_launching_ops(store::Database& db, int64_t run_id,
                                const std::unordered_set<OpKey, OpKeyHash>& keys) {
  LaunchingOps ops;
  if (keys.empty()) return ops;
  const auto& schema = store::host_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_ext = col("external_id"), c_name = col("name"),
            c_dims = col("input_dims"), c_types = col("input_types");
  auto keep_min = [](std::optional<std::string>& have, store::EventBlockReader& b, int c,
                     size_t r) {
    if (b.is_null(c, r)) return;
    std::string_view v = b.text_at(c, r);
    if (!have || v < *have) have = std::string(v);
  };
  store::BlockScan scan(db, schema, run_id, std::string("cpu_op"),
                        {"rank", "external_id", "name", "input_dims", "input_types"});
  while (scan.next()) {
    auto& b = scan.block();
    if (b.all_null(c_ext)) continue;
    for (size_t r = 0; r < b.rows(); ++r) {
      if (b.is_null(c_ext, r)) continue;
      OpKey key{b.int_at(c_rank, r), b.int_at(c_ext, r)};
      if (!keys.count(key)) continue;
      auto [it, fresh] = ops.try_emplace(key);
      std::string_view name = b.text_at(c_name, r);
      if (fresh || name < it->second.name) it->second.name = std::string(name);
      keep_min(it->second.dims, b, c_dims, r);
      keep_min(it->second.types, b, c_types, r);
    }
  }
  return ops;
}

LaunchOps::LaunchOps(store::Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT rank, correlation, op_external_id FROM kernel_launch_ops WHERE run_id = ?1");
  st.bind(1, run_id);
  while (st.step()) by_correlation_[{st.int64(0), st.int64(1)}] = st.int64(2);
}

int64_t LaunchOps::op_id(int64_t rank, int64_t external_id,
                         std::optional<int64_t> correlation) const {
  if (by_correlation_.empty() || correlation != external_id) return external_id;
  auto it = by_correlation_.find({rank, external_id});
  return it == by_correlation_.end() ? external_id : it->second;
}

}  // namespace perfsage::analyzers
