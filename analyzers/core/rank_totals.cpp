#include "analyzers/core/rank_totals.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "analyzers/core/like_match.h"
#include "analyzers/core/shared_passes.h"
#include "analyzers/core/tables.h"
#include "analyzers/core/timed_part.h"
#include "store/bind.h"
#include "store/block_scan.h"
#include "store/records.h"
#include "store/text_ids.h"

namespace perfsage::analyzers {
namespace {

struct RankTotal {
  std::optional<int64_t> first, last;
  int64_t device_events = 0, device_busy_ns = 0, op_tasks = 0;
  std::optional<int64_t> op_busy_ns, op_wait_ns;

  void span(int64_t start, int64_t end) {
    first = first ? std::min(*first, start) : start;
    last = last ? std::max(*last, end) : end;
  }
};

// start + dur as the block sink's span computes it (no signed overflow).
int64_t end_of(int64_t start, int64_t dur) {
  return static_cast<int64_t>(static_cast<uint64_t>(start) + static_cast<uint64_t>(dur));
}

int64_t rank_at(store::EventBlockReader& b, int col, size_t row) {
  return b.is_null(col, row) ? 0 : b.int_at(col, row);
}

// Whether every row of the block has one rank: a Kineto trace's blocks hold one file's events,
// so one rank's.
bool one_rank(store::EventBlockReader& b, int col) {
  const int64_t first = rank_at(b, col, 0);
  for (size_t r = 1; r < b.rows(); ++r)
    if (rank_at(b, col, r) != first) return false;
  return true;
}

// The span of host or device events: the blocks' recorded bounds (which leave out what the
// collector left out: Kineto's step markers), per row only in a block of several ranks. Only
// the Kineto collector leaves rows out of the bounds, and its blocks are one file's, so both
// give the bounds the whole run's blocks give.
void add_block_span(store::BlockScan& scan, int c_rank, int c_start, int c_dur,
                    std::map<int64_t, RankTotal>& ranks) {
  auto& b = scan.block();
  if (one_rank(b, c_rank)) {
    RankTotal& t = ranks[rank_at(b, c_rank, 0)];
    if (auto span = scan.span()) t.span(span->first, span->second);
    return;
  }
  for (size_t r = 0; r < b.rows(); ++r)
    ranks[rank_at(b, c_rank, r)].span(b.int_at(c_start, r),
                                      end_of(b.int_at(c_start, r), b.int_at(c_dur, r)));
}

using CommKey = std::pair<int64_t, std::optional<std::string>>;  // rank, name
using CommTotals = std::map<CommKey, std::optional<int64_t>>;

void add_comm(CommTotals& comm, CommKey key, std::optional<int64_t> dur) {
  auto [it, fresh] = comm.try_emplace(std::move(key), dur);
  if (!fresh && dur) it->second = it->second.value_or(0) + *dur;
}

void read_device(store::Database& db, int64_t run, std::map<int64_t, RankTotal>& ranks) {
  const auto& schema = store::device_event_schema();
  auto col = [&](const char* n) { return store::column_index(schema, n); };
  const int c_rank = col("rank"), c_start = col("start_ns"), c_dur = col("dur_ns");
  store::BlockScan scan(db, schema, run, std::nullopt, {"rank", "start_ns", "dur_ns"});
  while (scan.next()) {
    auto& b = scan.block();
    add_block_span(scan, c_rank, c_start, c_dur, ranks);
    const std::string& kind = scan.kind();
    const bool busy = kind == "kernel" || kind == "memcpy" || kind == "memset";
    for (size_t r = 0; r < b.rows(); ++r) {
      RankTotal& t = ranks[rank_at(b, c_rank, r)];
      ++t.device_events;
      if (busy) t.device_busy_ns += b.int_at(c_dur, r);
    }
  }
}

void read_host(store::Database& db, int64_t run, std::map<int64_t, RankTotal>& ranks,
               store::RowInserter& calls) {
  const auto& schema = store::host_event_schema();
  auto col = [&](const char* n) { return store::column_index(schema, n); };
  const int c_rank = col("rank"), c_start = col("start_ns"), c_dur = col("dur_ns"),
            c_name = col("name"), c_tid = col("tid");
  store::BlockScan scan(db, schema, run, std::nullopt,
                        {"rank", "start_ns", "dur_ns", "name", "tid"});
  // The host_comm fact's collectives: gloo:, nccl:, c10d:: and mpi: calls.
  auto is_collective = [](std::string_view name) {
    return starts_folded(name, "gloo:") || starts_folded(name, "nccl:") ||
           starts_folded(name, "c10d::") || starts_folded(name, "mpi:");
  };
  store::BlockTextValues<bool> collective(c_name);
  while (scan.next()) {
    auto& b = scan.block();
    add_block_span(scan, c_rank, c_start, c_dur, ranks);
    if (scan.kind() != "user_annotation" && scan.kind() != "cpu_op") continue;
    collective.start_block();
    for (size_t r = 0; r < b.rows(); ++r) {
      if (!collective.at(b, r, is_collective)) continue;
      const int64_t start = b.int_at(c_start, r);
      calls.insert(run, rank_at(b, c_rank, r),
                   b.is_null(c_tid, r) ? std::nullopt : store::OptInt(b.int_at(c_tid, r)),
                   std::string(b.text_at(c_name, r)), start, end_of(start, b.int_at(c_dur, r)));
    }
  }
}

void read_op_tasks(const OpTaskPass& pass, std::map<int64_t, RankTotal>& ranks, CommTotals& comm) {
  std::vector<int8_t> hccl(pass.texts.size(), -1);  // per core type id: whether it is HCCL
  for (const OpTaskPass::Task& task : pass.tasks) {
    RankTotal& t = ranks[task.rank];  // a NULL rank is 0, as the pass reads it
    ++t.op_tasks;
    std::optional<int64_t> dur;
    if (!task.dur_null) dur = task.dur_ns;
    if (dur) t.op_busy_ns = t.op_busy_ns.value_or(0) + *dur;
    if (!task.wait_null) t.op_wait_ns = t.op_wait_ns.value_or(0) + task.wait_ns;
    // As SQL's min(start_ns) and max(start_ns + dur_ns) over the op tasks.
    if (task.start != OpTaskPass::kNoStart) {
      const int64_t start = task.start;
      t.first = t.first ? std::min(*t.first, start) : start;
      if (dur) t.last = t.last ? std::max(*t.last, end_of(start, *dur)) : end_of(start, *dur);
    }
    if (task.core_type == OpTaskPass::kNone) continue;
    int8_t& is_hccl = hccl[task.core_type];
    if (is_hccl < 0) is_hccl = pass.texts.text(task.core_type) == "HCCL";
    if (is_hccl)
      add_comm(comm,
               {task.rank, task.name_null ? std::nullopt
                                          : std::optional<std::string>(pass.texts.text(task.name))},
               dur);
  }
}

}  // namespace

void compute_rank_totals(store::Database& db, int64_t run, SharedPasses* passes) {
  // One transaction: a call per collective (tens of thousands in a long DDP trace) each in a
  // transaction of its own took a minute.
  store::Transaction txn(db);
  for (const char* t : {"rank_totals", "hccl_totals", "host_collective_calls"})
    db.prepare(std::string("DELETE FROM ") + t + " WHERE run_id = ?1").bind(1, run).run();
  std::map<int64_t, RankTotal> ranks;
  CommTotals comm;
  {
    store::RowInserter calls(db, tables::host_collective_calls());
    timed_part("rank_totals", "host", [&] { read_host(db, run, ranks, calls); });
  }
  timed_part("rank_totals", "device", [&] { read_device(db, run, ranks); });
  timed_part("rank_totals", "op tasks",
             [&] { read_op_tasks(*op_task_pass(passes, db, run), ranks, comm); });
  store::RowInserter insert(db, tables::rank_totals());
  for (const auto& [rank, t] : ranks)
    insert.insert(run, rank, t.first, t.last, t.device_events, t.device_busy_ns, t.op_tasks,
                  t.op_busy_ns, t.op_wait_ns);
  store::RowInserter insert_hccl(db, tables::hccl_totals());
  for (const auto& [key, dur] : comm) insert_hccl.insert(run, key.first, key.second, dur);
  txn.commit();
}

}  // namespace perfsage::analyzers
