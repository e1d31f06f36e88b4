// Host blocking per rank (docs/gpu-definitions.md, "Host blocking"): the runtime calls that stop
// the CPU until the GPU has caught up, whether each ran inside a ProfilerStep, and the
// framework op (and Python frame) that issued it.
//  * sync: cuda/hip/cu ...Synchronize calls: the host waits for the device, a stream or an event;
//  * dtoh_copy: a device-to-host copy into pageable memory (tensor.item(), .cpu(), .tolist()),
//    or one issued by a blocking API: it returns only when the copy is done, and the copy starts
//    only after everything queued before it, so the host waits for the whole queue;
//  * blocking_copy: any other copy issued by a blocking API (cudaMemcpy, hipMemcpyWithStream);
//  * alloc: cudaMalloc / cudaFree and their HIP and driver twins: the caching allocator asking
//    the driver for memory or giving it back (cudaFree synchronises the device first).
//    Stream-ordered allocation (cudaMallocAsync, cudaFreeAsync) and pinned host memory are not.
// Asynchronous copies to or from pinned memory do not block; a pageable host-to-device async
// copy only stages the data (the pageable_memcpy finding), without waiting for the queue.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/gpu/tables.h"
#include "store/bind.h"
#include "store/block_scan.h"
#include "store/records.h"
#include "store/text_ids.h"

namespace perfsage::analyzers::gpu {
namespace {

struct Copy {
  bool dtoh = false, pageable = false;
};

struct Call {
  int64_t rank, pid, tid, start, end;
  const char* kind;
  std::string name;
  // The enclosing framework ops on the same thread: innermost and outermost, and the innermost
  // Python frame.
  int64_t inner_start = 0, outer_start = 0, python_start = 0;
  int64_t inner_dur = 0, outer_dur = 0;
  std::string inner, outer, python;
};

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

bool is_sync(std::string_view name) {
  return contains(name, "Synchronize");
}

bool is_alloc(std::string_view name) {
  if (contains(name, "Async") || contains(name, "Host") || contains(name, "Managed")) return false;
  for (std::string_view call :
       {"cudaMalloc", "cudaFree", "hipMalloc", "hipFree", "cuMemAlloc", "cuMemFree"})
    if (name.rfind(call, 0) == 0) return true;
  return false;
}

bool is_copy_call(std::string_view name) {
  return contains(name, "Memcpy") || contains(name, "memcpy");
}

// What a call's name makes it, decided once per distinct name of a block: the runtime calls of
// a 1 GB trace are a million, their names a few dozen.
enum class CallName : uint8_t { other, sync, alloc, copy, async_copy };

CallName classify(std::string_view name) {
  if (is_sync(name)) return CallName::sync;
  if (is_alloc(name)) return CallName::alloc;
  if (is_copy_call(name)) return contains(name, "Async") ? CallName::async_copy : CallName::copy;
  return CallName::other;
}

// The run's copies by (rank, correlation id).
std::map<std::pair<int64_t, int64_t>, Copy> load_copies(store::Database& db, int64_t run) {
  std::map<std::pair<int64_t, int64_t>, Copy> out;
  auto st = db.prepare(
      "SELECT correlation, name, coalesce(memcpy_kind, ''), rank FROM device_events "
      "WHERE run_id=?1 AND kind='memcpy' AND correlation IS NOT NULL");
  st.bind(1, run);
  while (st.step()) {
    std::string name = st.text(1), kind = st.text(2);
    Copy c;
    c.dtoh = contains(name, "DtoH") || contains(kind, "DtoH") ||
             contains(name, "Device -> Pageable") || contains(name, "Device -> Pinned");
    c.pageable = contains(name, "Pageable") || contains(kind, "Pageable");
    out[{st.int64(3), st.int64(0)}] = c;
  }
  return out;
}

// Each rank's ProfilerStep windows [start, end), in start order.
std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> load_step_windows(store::Database& db,
                                                                              int64_t run) {
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> w;
  auto st = db.prepare(
      "SELECT rank, start_ns, start_ns + dur_ns FROM steps WHERE run_id=?1 AND "
      "source='ProfilerStep' AND start_ns IS NOT NULL AND dur_ns > 0 ORDER BY rank, start_ns");
  st.bind(1, run);
  while (st.step()) w[st.int64(0)].emplace_back(st.int64(1), st.int64(2));
  return w;
}

// The blocking calls of every rank, from the runtime and driver blocks.
std::vector<Call> load_blocking_calls(store::Database& db, int64_t run,
                                      const std::map<std::pair<int64_t, int64_t>, Copy>& copies) {
  const auto& schema = store::host_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_name = col("name"), c_pid = col("pid"), c_tid = col("tid"),
            c_start = col("start_ns"), c_dur = col("dur_ns"), c_corr = col("correlation");
  std::vector<Call> out;
  store::BlockTextValues<CallName> names(c_name);
  for (const char* kind : {"runtime", "driver"}) {
    store::BlockScan scan(db, schema, run, std::string(kind),
                          {"rank", "name", "pid", "tid", "start_ns", "dur_ns", "correlation"});
    while (scan.next()) {
      auto& b = scan.block();
      names.start_block();
      for (size_t r = 0; r < b.rows(); ++r) {
        // A null name reads as the dictionary's first text, as text_at() gives it.
        const CallName what_name = names.at(b, r, classify);
        if (what_name == CallName::other) continue;
        const int64_t rank = b.int_at(c_rank, r);
        std::string_view name = b.text_at(c_name, r);
        const char* what = nullptr;
        if (what_name == CallName::sync) {
          what = "sync";
        } else if (what_name == CallName::alloc) {
          what = "alloc";
        } else {
          const bool async = what_name == CallName::async_copy;
          std::optional<Copy> copy;
          if (!b.is_null(c_corr, r)) {
            auto it = copies.find({rank, b.int_at(c_corr, r)});
            if (it != copies.end()) copy = it->second;
          }
          if (copy && copy->dtoh && (copy->pageable || !async))
            what = "dtoh_copy";
          else if (!async)
            what = "blocking_copy";
        }
        if (!what) continue;
        Call c;
        c.rank = rank;
        c.pid = b.is_null(c_pid, r) ? 0 : b.int_at(c_pid, r);
        c.tid = b.is_null(c_tid, r) ? 0 : b.int_at(c_tid, r);
        c.start = b.int_at(c_start, r);
        c.end = c.start + b.int_at(c_dur, r);
        c.kind = what;
        c.name = std::string(name);
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

// Names each call's enclosing framework ops and Python frame on its thread: one pass over the
// ranks' CPU ops, annotations and Python events, each looking up the calls in its time range.
void attribute(store::Database& db, int64_t run, std::vector<Call>& calls) {
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<Call*>> by_thread;
  for (auto& c : calls) by_thread[{c.rank, c.pid, c.tid}].push_back(&c);
  for (auto& [thread, list] : by_thread)
    std::sort(list.begin(), list.end(),
              [](const Call* a, const Call* b) { return a->start < b->start; });
  const auto& schema = store::host_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_name = col("name"), c_pid = col("pid"), c_tid = col("tid"),
            c_start = col("start_ns"), c_dur = col("dur_ns");
  for (const char* kind : {"cpu_op", "user_annotation", "python"}) {
    const bool python = kind[0] == 'p';
    store::BlockScan scan(db, schema, run, std::string(kind),
                          {"rank", "name", "pid", "tid", "start_ns", "dur_ns"});
    while (scan.next()) {
      auto& b = scan.block();
      for (size_t r = 0; r < b.rows(); ++r) {
        auto it = by_thread.find({b.int_at(c_rank, r), b.is_null(c_pid, r) ? 0 : b.int_at(c_pid, r),
                                  b.is_null(c_tid, r) ? 0 : b.int_at(c_tid, r)});
        if (it == by_thread.end()) continue;
        const int64_t start = b.int_at(c_start, r), dur = b.int_at(c_dur, r), end = start + dur;
        auto& list = it->second;
        auto first = std::lower_bound(list.begin(), list.end(), start,
                                      [](const Call* c, int64_t t) { return c->start < t; });
        if (first == list.end() || (*first)->start > end) continue;
        std::string_view name = b.text_at(c_name, r);
        // Step markers and profiler bookkeeping enclose everything; they name no culprit.
        if (name.rfind("ProfilerStep#", 0) == 0 || name.rfind("## ", 0) == 0) continue;
        for (auto c = first; c != list.end() && (*c)->start <= end; ++c) {
          Call& call = **c;
          if (call.end > end) continue;
          if (python) {
            if (call.python.empty() || start >= call.python_start) {
              call.python = std::string(name);
              call.python_start = start;
            }
            continue;
          }
          if (call.inner.empty() || start > call.inner_start ||
              (start == call.inner_start && dur < call.inner_dur)) {
            call.inner = std::string(name);
            call.inner_start = start;
            call.inner_dur = dur;
          }
          if (call.outer.empty() || start < call.outer_start ||
              (start == call.outer_start && dur > call.outer_dur)) {
            call.outer = std::string(name);
            call.outer_start = start;
            call.outer_dur = dur;
          }
        }
      }
    }
  }
}

}  // namespace

void compute_host_blocking(store::Database& db, int64_t run) {
  db.prepare("DELETE FROM host_blocking WHERE run_id=?1").bind(1, run).run();
  // One pass over the run's calls and ops for all ranks (ranks are keys, not passes).
  auto calls = load_blocking_calls(db, run, load_copies(db, run));
  if (calls.empty()) return;
  attribute(db, run, calls);
  const auto windows = load_step_windows(db, run);
  struct Total {
    int64_t calls = 0, dur = 0, max = 0;
  };
  using Key =
      std::tuple<int64_t, std::string, std::string, std::string, std::string, std::string, int>;
  std::map<Key, Total> totals;
  for (const auto& c : calls) {
    int in_step = -1;  // no steps recorded on this rank
    if (auto w = windows.find(c.rank); w != windows.end()) {
      const auto& win = w->second;
      auto after = std::upper_bound(win.begin(), win.end(), c.start,
                                    [](int64_t t, const auto& x) { return t < x.first; });
      in_step = after != win.begin() && c.start < std::prev(after)->second ? 1 : 0;
    }
    Total& t = totals[{c.rank, c.kind, c.name, c.inner, c.outer, c.python, in_step}];
    ++t.calls;
    t.dur += c.end - c.start;
    t.max = std::max(t.max, c.end - c.start);
  }
  store::RowInserter insert(db, tables::host_blocking());
  for (const auto& [key, t] : totals) {
    const auto& [rank, kind, name, op, top_op, python, in_step] = key;
    insert.insert(run, rank, kind, name, op, top_op, python,
                  in_step < 0 ? std::optional<int64_t>() : std::optional<int64_t>(in_step), t.calls,
                  t.dur, t.max);
  }
}

}  // namespace perfsage::analyzers::gpu
