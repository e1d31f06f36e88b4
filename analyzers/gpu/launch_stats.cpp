// Kernel launch and synchronisation statistics per rank: launch API cost, the delay from the
// end of a launch call to the start of its GPU activity (linked by correlation id), short
// kernels, and host synchronisation calls next to GPU-side sync events.

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzers/core/like_match.h"
#include "analyzers/core/name_totals.h"
#include "analyzers/core/op_key_table.h"
#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/gpu/tables.h"
#include "store/bind.h"
#include "store/block_scan.h"
#include "store/records.h"
#include "store/text_hash.h"
#include "store/text_ids.h"

namespace perfsage::analyzers::gpu {
namespace {

bool is_launch(const std::string& n) {
  return n.find("LaunchKernel") != std::string::npos ||
         n.find("GraphLaunch") != std::string::npos ||
         n.find("LaunchCooperativeKernel") != std::string::npos ||
         n.find("ModuleLaunch") != std::string::npos;
}

}  // namespace

LaunchTotals compute_api_totals(store::Database& db, int64_t run) {
  db.prepare("DELETE FROM api_totals WHERE run_id=?1").bind(1, run).run();
  db.prepare("DELETE FROM copy_groups WHERE run_id=?1").bind(1, run).run();
  LaunchTotals out;
  // The copies and sets first (few beside the calls), with the correlation ids of their calls.
  struct Copy {
    std::string name, kind;
    std::optional<std::string> memcpy_kind;
    int64_t rank = 0, dur_ns = 0;
    std::optional<int64_t> correlation, bytes;
  };
  std::vector<Copy> copies;
  OpKeyTable<char> copy_correlations;  // by correlation alone (rank 0)
  {
    const auto& schema = store::device_event_schema();
    auto col = [&](const char* name) { return store::column_index(schema, name); };
    const int c_rank = col("rank"), c_name = col("name"), c_mk = col("memcpy_kind"),
              c_dur = col("dur_ns"), c_corr = col("correlation"), c_bytes = col("bytes");
    for (const char* kind : {"memcpy", "memset"}) {
      store::BlockScan scan(db, schema, run, std::string(kind),
                            {"rank", "name", "memcpy_kind", "dur_ns", "correlation", "bytes"});
      while (scan.next()) {
        auto& b = scan.block();
        for (size_t r = 0; r < b.rows(); ++r) {
          Copy c{std::string(b.text_at(c_name, r)),
                 kind,
                 std::nullopt,
                 b.int_at(c_rank, r),
                 b.int_at(c_dur, r),
                 std::nullopt,
                 std::nullopt};
          if (!b.is_null(c_mk, r)) c.memcpy_kind = std::string(b.text_at(c_mk, r));
          if (!b.is_null(c_corr, r)) {
            c.correlation = b.int_at(c_corr, r);
            copy_correlations[{0, *c.correlation}] = 1;
          }
          if (!b.is_null(c_bytes, r)) c.bytes = b.int_at(c_bytes, r);
          out.copy_ns[c.rank] += c.dur_ns;
          copies.push_back(std::move(c));
        }
      }
    }
  }
  struct Total {
    int64_t calls = 0, dur_ns = 0, max_ns = 0;
  };
  const auto& schema = store::host_event_schema();
  const int c_rank = store::column_index(schema, "rank"),
            c_name = store::column_index(schema, "name"),
            c_dur = store::column_index(schema, "dur_ns"),
            c_corr = store::column_index(schema, "correlation");
  std::unordered_map<std::string, std::map<int64_t, Total>, store::TextHash, std::equal_to<>>
      by_name;
  // (rank, correlation) of a copy -> the least name of the runtime or driver calls issuing it.
  std::map<std::pair<int64_t, int64_t>, std::string> copy_api;
  // Per name of the current block's dictionary, looked up once per block and rank: its totals
  // and whether it is a launch (as SQL's LIKE '%LaunchKernel%' OR LIKE
  // '%LaunchCooperativeKernel%', ASCII case folded: the launch fact's launch API time).
  struct NameOf {
    Total* total = nullptr;
    bool launch = false;
  };
  store::BlockTextValues<NameOf> names(c_name);
  for (const char* kind : {"runtime", "driver", "api"}) {
    const bool runtime_or_driver = std::string_view(kind) != "api";
    store::BlockScan scan(db, schema, run, std::string(kind),
                          {"rank", "name", "dur_ns", "correlation"});
    while (scan.next()) {
      auto& b = scan.block();
      std::optional<int64_t> names_rank;
      for (size_t r = 0; r < b.rows(); ++r) {
        const int64_t rank = b.int_at(c_rank, r);
        if (rank != names_rank) {
          names.start_block();
          names_rank = rank;
        }
        const NameOf& n = names.at(b, r, [&](std::string_view name) {
          auto it = by_name.find(name);
          if (it == by_name.end())
            it = by_name.emplace(std::string(name), std::map<int64_t, Total>{}).first;
          return NameOf{&it->second[rank], contains_folded(name, "launchkernel") ||
                                               contains_folded(name, "launchcooperativekernel")};
        });
        std::string_view name = b.text_at(c_name, r);
        Total& t = *n.total;
        int64_t dur = b.int_at(c_dur, r);
        ++t.calls;
        t.dur_ns += dur;
        t.max_ns = t.calls == 1 ? dur : std::max(t.max_ns, dur);
        if (!runtime_or_driver) continue;
        if (n.launch) out.launch_api_ns[rank] += dur;
        if (!copy_correlations.empty() && !b.is_null(c_corr, r) &&
            copy_correlations.contains({0, b.int_at(c_corr, r)})) {
          auto [api, fresh] = copy_api.try_emplace({rank, b.int_at(c_corr, r)}, name);
          if (!fresh && name < api->second) api->second = std::string(name);
        }
      }
    }
  }
  // Written by rank, then name: a rank's rows do not depend on the other ranks' calls.
  std::vector<std::tuple<int64_t, const std::string*, const Total*>> rows;
  for (const auto& [name, ranks] : by_name)
    for (const auto& [rank, t] : ranks) rows.emplace_back(rank, &name, &t);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b)
                                            : *std::get<1>(a) < *std::get<1>(b);
  });
  store::RowInserter insert(db, tables::api_totals());
  for (const auto& [rank, name, t] : rows)
    insert.insert(run, rank, *name, t->calls, t->dur_ns, t->max_ns);
  // Copies per (rank, name, kind, copy kind, call), in that order.
  struct Group {
    int64_t count = 0, dur_ns = 0, bytes = 0;
    bool has_bytes = false;
  };
  std::map<std::tuple<int64_t, std::string, std::string, std::optional<std::string>,
                      std::optional<std::string>>,
           Group>
      groups;
  for (Copy& c : copies) {
    std::optional<std::string> api;
    if (c.correlation) {
      auto it = copy_api.find({c.rank, *c.correlation});
      if (it != copy_api.end()) api = it->second;
    }
    Group& g = groups[{c.rank, std::move(c.name), std::move(c.kind), std::move(c.memcpy_kind),
                       std::move(api)}];
    ++g.count;
    g.dur_ns += c.dur_ns;
    if (c.bytes) {
      g.bytes += *c.bytes;
      g.has_bytes = true;
    }
  }
  store::RowInserter insert_copy(db, tables::copy_groups());
  for (const auto& [key, g] : groups) {
    const auto& [rank, name, kind, memcpy_kind, api] = key;
    insert_copy.insert(run, rank, name, kind, memcpy_kind, api, g.count, g.dur_ns,
                       g.has_bytes ? store::OptInt(g.bytes) : std::nullopt);
  }
  return out;
}

namespace {

// One rank's launch calls and GPU activities, gathered in one pass over each.
struct RankLaunches {
  // Launch call end -> GPU start, for every activity linked to its API call by correlation
  // (the latest-ending call when several share one).
  std::vector<std::pair<int64_t, int64_t>> activities;  // (correlation, start)
  struct Call {
    int64_t end = std::numeric_limits<int64_t>::min();  // min: no call seen
    bool graph = false;                                 // a graph launch issued it
  };
  OpKeyTable<Call> calls;  // by correlation (rank 0): the activities' calls
  // API calls per name (classified per name: a few dozen names instead of millions of calls).
  std::unordered_map<std::string, NameTotal, store::TextHash, std::equal_to<>> by_name;
  int64_t kernels = 0, short_kernels = 0, short_ns = 0, syncs = 0, sync_ns = 0;
};

// Every device event, by rank: the activities' correlations and starts, kernel and GPU-sync
// counts and times.
void read_activities(store::Database& db, int64_t run, const GpuAnalysisOptions& opt,
                     std::map<int64_t, RankLaunches>& ranks) {
  const auto& schema = store::device_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_start = col("start_ns"), c_dur = col("dur_ns"),
            c_corr = col("correlation");
  store::BlockScan scan(db, schema, run, std::nullopt,
                        {"rank", "start_ns", "dur_ns", "correlation"});
  while (scan.next()) {
    auto& b = scan.block();
    const std::string& kind = scan.kind();
    const bool kernel = kind == "kernel", sync = kind == "sync";
    const bool activity = kernel || kind == "memcpy" || kind == "memset";
    RankLaunches* at = nullptr;
    int64_t at_rank = 0;
    for (size_t r = 0; r < b.rows(); ++r) {
      int64_t rank = b.int_at(c_rank, r);
      if (at == nullptr || rank != at_rank) {
        at = &ranks[rank];
        at_rank = rank;
      }
      if (activity && !b.is_null(c_corr, r)) {
        int64_t corr = b.int_at(c_corr, r);
        at->activities.emplace_back(corr, b.int_at(c_start, r));
        at->calls[{0, corr}];
      }
      if (b.is_null(c_dur, r)) {
        at->kernels += kernel ? 1 : 0;
        at->syncs += sync ? 1 : 0;
        continue;
      }
      int64_t dur = b.int_at(c_dur, r);
      if (kernel) {
        ++at->kernels;
        if (dur < opt.short_kernel_ns) {
          ++at->short_kernels;
          at->short_ns += dur;
        }
      } else if (sync) {
        ++at->syncs;
        at->sync_ns += dur;
      }
    }
  }
}

// The runtime and driver calls, by rank: totals per name and each linked call's end.
void read_calls(store::Database& db, int64_t run, const GpuAnalysisOptions& opt,
                std::map<int64_t, RankLaunches>& ranks) {
  const auto& schema = store::host_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_name = col("name"), c_start = col("start_ns"),
            c_dur = col("dur_ns"), c_corr = col("correlation");
  for (const char* kind : {"runtime", "driver"}) {
    store::BlockScan scan(db, schema, run, std::string(kind),
                          {"rank", "name", "start_ns", "dur_ns", "correlation"});
    // Per name of the current block's dictionary and rank: its totals, whether a graph launch.
    struct NameOf {
      NameTotal* total;
      bool graph;
    };
    store::BlockTextValues<NameOf> names(c_name);
    while (scan.next()) {
      auto& b = scan.block();
      RankLaunches* at = nullptr;
      int64_t at_rank = 0;
      for (size_t r = 0; r < b.rows(); ++r) {
        const int64_t rank = b.int_at(c_rank, r);
        if (at == nullptr || rank != at_rank) {
          at = &ranks[rank];
          at_rank = rank;
          names.start_block();
        }
        const NameOf& n = names.at(b, r, [&](std::string_view name) {
          auto it = at->by_name.find(name);
          if (it == at->by_name.end())
            it = at->by_name.emplace(std::string(name), NameTotal{std::string(name)}).first;
          // A graph launch enqueues every activity of the graph at once: when its later
          // kernels start is the graph's order, not a launch delay (they count as linked).
          return NameOf{&it->second, name.find("GraphLaunch") != std::string_view::npos};
        });
        NameTotal* total = n.total;
        int64_t dur = b.int_at(c_dur, r);
        ++total->count;
        total->dur_ns += dur;
        if (dur > opt.slow_launch_ns) ++total->over;
        if (b.is_null(c_corr, r)) continue;
        RankLaunches::Call* call = at->calls.find({0, b.int_at(c_corr, r)});
        if (call == nullptr) continue;
        if (n.graph) call->graph = true;
        call->end = std::max(call->end, b.int_at(c_start, r) + dur);
      }
    }
  }
}

}  // namespace

void compute_launch_stats(store::Database& db, int64_t run, const GpuAnalysisOptions& opt) {
  db.prepare("DELETE FROM gpu_launch_stats WHERE run_id=?1").bind(1, run).run();
  // Only ranks with GPU activity or GPU API calls: CPU-only ranks get no row at all. The
  // activities first: the calls' pass keeps the ends of the calls they wait for.
  std::map<int64_t, RankLaunches> ranks;
  read_activities(db, run, opt, ranks);
  read_calls(db, run, opt, ranks);
  store::RowInserter insert(db, tables::launch_stats());
  for (auto& [rank, at] : ranks) {
    int64_t launches = 0, launch_ns = 0, slow = 0, sync_calls = 0, sync_ns = 0;
    int64_t device_sync = 0, stream_sync = 0, event_sync = 0, wait_event = 0;
    for (const auto& [name, api] : at.by_name) {
      int64_t calls = api.count, dur = api.dur_ns, slow_calls = api.over;
      if (is_launch(name)) {
        launches += calls;
        launch_ns += dur;
        slow += slow_calls;
      }
      if (name.find("Synchronize") != std::string::npos) {
        sync_calls += calls;
        sync_ns += dur;
        if (name.find("DeviceSynchronize") != std::string::npos ||
            name.find("CtxSynchronize") != std::string::npos)
          device_sync += calls;
        else if (name.find("StreamSynchronize") != std::string::npos)
          stream_sync += calls;
        else if (name.find("EventSynchronize") != std::string::npos)
          event_sync += calls;
      }
      if (name.find("StreamWaitEvent") != std::string::npos) wait_event += calls;
    }
    int64_t linked = 0, timed = 0, delayed = 0, delay_sum = 0, delay_max = 0;
    for (const auto& [correlation, start] : at.activities) {
      const RankLaunches::Call& call = *at.calls.find({0, correlation});
      if (call.end == std::numeric_limits<int64_t>::min()) continue;  // no launch call recorded
      ++linked;
      if (call.graph) continue;
      int64_t delay = start - call.end;
      delay_sum += delay;
      delay_max = timed++ == 0 ? delay : std::max(delay_max, delay);
      if (delay > opt.launch_delay_ns) ++delayed;
    }
    auto us = [](double ns) { return ns / 1e3; };
    std::optional<double> launch_avg, delay_avg, delay_max_us;
    if (launches > 0) launch_avg = us(static_cast<double>(launch_ns) / launches);
    if (timed > 0) {
      delay_avg = us(static_cast<double>(delay_sum) / timed);
      delay_max_us = us(static_cast<double>(delay_max));
    }
    insert.insert(run, rank, launches, us(static_cast<double>(launch_ns)), launch_avg, slow, linked,
                  delay_avg, delay_max_us, delayed, at.kernels, at.short_kernels,
                  us(static_cast<double>(at.short_ns)), sync_calls,
                  us(static_cast<double>(sync_ns)), device_sync, stream_sync, event_sync,
                  wait_event, at.syncs, us(static_cast<double>(at.sync_ns)));
  }
}

}  // namespace perfsage::analyzers::gpu
