// Step breakdown of GPU time (the tb_plugin / HTA "temporal breakdown"): per ProfilerStep (or
// the whole trace when there is none) and rank, the union of computation kernels, of
// communication kernels (NCCL/RCCL or kernels carrying collective args), their overlap, and the
// time the GPU does nothing; plus the same per stream.
#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzers/gpu/device_spans.h"
#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/gpu/intervals.h"
#include "analyzers/gpu/tables.h"
#include "store/bind.h"
#include "store/block_scan.h"
#include "store/records.h"
#include "store/text_hash.h"

namespace perfsage::analyzers::gpu {
namespace {

struct Window {
  int64_t step, start, end;
};

std::vector<Window> load_windows(store::Database& db, int64_t run, int64_t rank,
                                 const std::vector<DeviceSpan>& dev) {
  std::vector<Window> w;
  auto st = db.prepare(
      "SELECT step, start_ns, dur_ns FROM steps WHERE run_id=?1 AND rank=?2 AND "
      "source='ProfilerStep' AND start_ns IS NOT NULL ORDER BY start_ns");
  st.bind(1, run).bind(2, rank);
  while (st.step()) w.push_back({st.int64(0), st.int64(1), st.int64(1) + st.int64(2)});
  if (!w.empty() || dev.empty()) return w;
  // No steps: the whole trace of this rank, host and device, is one window.
  int64_t lo = dev.front().start, hi = dev.front().end;
  for (const auto& d : dev) {
    lo = std::min(lo, d.start);
    hi = std::max(hi, d.end);
  }
  const auto& schema = store::host_event_schema();
  const int c_rank = store::column_index(schema, "rank"),
            c_start = store::column_index(schema, "start_ns"),
            c_dur = store::column_index(schema, "dur_ns");
  store::BlockScan scan(db, schema, run, std::nullopt, {"rank", "start_ns", "dur_ns"});
  while (scan.next()) {
    auto& b = scan.block();
    for (size_t r = 0; r < b.rows(); ++r) {
      if (b.int_at(c_rank, r) != rank) continue;
      lo = std::min(lo, b.int_at(c_start, r));
      hi = std::max(hi, b.int_at(c_start, r) + b.int_at(c_dur, r));
    }
  }
  w.push_back({0, lo, hi});
  return w;
}

// Host annotation time inside a window, nested annotations counted once.
double host_us(const std::vector<Interval>& spans, const Window& w) {
  std::vector<Interval> clipped;
  for (const auto& [s, e] : spans) {
    int64_t cs = std::max(s, w.start), ce = std::min(e, w.end);
    if (ce > cs) clipped.emplace_back(cs, ce);
  }
  merge(clipped);
  return static_cast<double>(length(clipped)) / 1e3;
}

// Host spans whose name starts with `a` or with `b`, in one pass over the run's CPU ops and
// annotations.
std::pair<std::vector<Interval>, std::vector<Interval>> load_host(store::Database& db, int64_t run,
                                                                  int64_t rank, const char* a,
                                                                  const char* b) {
  const auto& schema = store::host_event_schema();
  const int c_rank = store::column_index(schema, "rank"),
            c_name = store::column_index(schema, "name"),
            c_start = store::column_index(schema, "start_ns"),
            c_dur = store::column_index(schema, "dur_ns");
  const std::string_view pa(a), pb(b);
  std::pair<std::vector<Interval>, std::vector<Interval>> out;
  for (const char* kind : {"user_annotation", "cpu_op"}) {
    store::BlockScan scan(db, schema, run, std::string(kind),
                          {"rank", "name", "start_ns", "dur_ns"});
    while (scan.next()) {
      auto& blk = scan.block();
      for (size_t r = 0; r < blk.rows(); ++r) {
        if (blk.int_at(c_rank, r) != rank) continue;
        std::string_view name = blk.text_at(c_name, r);
        bool first = name.substr(0, pa.size()) == pa;
        if (!first && name.substr(0, pb.size()) != pb) continue;
        int64_t start = blk.int_at(c_start, r);
        (first ? out.first : out.second).emplace_back(start, start + blk.int_at(c_dur, r));
      }
    }
  }
  return out;
}

struct Sets {
  std::vector<Interval> compute, comm, copy, set;
  int64_t kernels = 0;
  void add(const DeviceSpan& d, int64_t s, int64_t e) {
    switch (d.cls) {
      case Class::compute:
        compute.emplace_back(s, e);
        ++kernels;
        break;
      case Class::comm:
        comm.emplace_back(s, e);
        ++kernels;
        break;
      case Class::copy:
        copy.emplace_back(s, e);
        break;
      case Class::set:
        set.emplace_back(s, e);
        break;
    }
  }
  // Busy time of everything together (merges every set).
  int64_t busy() {
    merge(compute);
    merge(comm);
    merge(copy);
    merge(set);
    // The merged sets are sorted: merging their runs sorts `all` without a sort.
    std::vector<Interval> all;
    all.reserve(compute.size() + comm.size() + copy.size() + set.size());
    for (auto* v : {&compute, &comm, &copy, &set}) {
      const auto mid = static_cast<std::ptrdiff_t>(all.size());
      all.insert(all.end(), v->begin(), v->end());
      std::inplace_merge(all.begin(), all.begin() + mid, all.end());
    }
    merge(all);
    return length(all);
  }
};

}  // namespace

void compute_gpu_breakdown(store::Database& db, int64_t run) {
  db.prepare("DELETE FROM steps WHERE run_id=?1 AND source='gpu_breakdown'").bind(1, run).run();
  db.prepare("DELETE FROM gpu_streams WHERE run_id=?1").bind(1, run).run();
  std::set<int64_t> ranks = device_ranks(db, run);
  {
    auto st =
        db.prepare("SELECT DISTINCT rank FROM steps WHERE run_id=?1 AND source='ProfilerStep'");
    st.bind(1, run);
    while (st.step()) ranks.insert(st.int64(0));
  }
  store::RowInserter insert_stream(db, tables::streams());
  auto insert_step =
      db.prepare("INSERT INTO steps VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)");
  for (int64_t rank : ranks) {
    auto dev = load_device_spans(db, run, rank);
    auto windows = load_windows(db, run, rank, dev);
    // In runs of ascending start, each window visits only the activities of each run that can
    // overlap it (those starting after w.start - longest), not every activity of the rank: steps
    // x activities would be quadratic on long traces. As loaded, the activities are in start
    // order but for a few runs (69 in the 1 GB trace): searching each run for each window costs
    // less than sorting 72-byte spans, unless the searches outnumber the activities.
    auto by_start = [](const DeviceSpan& a, const DeviceSpan& b) { return a.start < b.start; };
    std::vector<std::pair<size_t, size_t>> runs;
    for (size_t i = 1, begin = 0; i <= dev.size(); ++i)
      if (i == dev.size() || by_start(dev[i], dev[i - 1])) {
        runs.emplace_back(begin, i);
        begin = i;
      }
    if (runs.size() * windows.size() > dev.size()) {
      std::sort(dev.begin(), dev.end(), by_start);
      runs = {{0, dev.size()}};
    }
    int64_t longest = 0;
    for (const auto& d : dev) longest = std::max(longest, d.end - d.start);
    auto [loader, optimizer] = load_host(db, run, rank, "enumerate(DataLoader)", "Optimizer.step");
    for (const Window& w : windows) {
      Sets total;
      std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, Sets> streams;
      for (auto [begin, end] : runs) {
        const auto run_end = dev.begin() + static_cast<std::ptrdiff_t>(end);
        auto first = std::lower_bound(dev.begin() + static_cast<std::ptrdiff_t>(begin), run_end,
                                      w.start - longest,
                                      [](const DeviceSpan& d, int64_t t) { return d.start < t; });
        for (auto it = first; it != run_end && it->start < w.end; ++it) {
          const DeviceSpan& d = *it;
          int64_t s = std::max(d.start, w.start), e = std::min(d.end, w.end);
          if (e <= s) continue;
          total.add(d, s, e);
          streams[{d.device.has_value(), d.device.value_or(0), d.stream.has_value(),
                   d.stream.value_or(0)}]
              .add(d, s, e);
        }
      }
      store::Step row;
      row.rank = rank;
      row.step = w.step;
      row.source = "gpu_breakdown";
      row.start_ns = w.start;
      row.dur_ns = w.end - w.start;
      if (!dev.empty()) {
        int64_t busy = total.busy();
        int64_t overlap = intersection(total.compute, total.comm);
        int64_t comm = length(total.comm);
        row.computing_us = static_cast<double>(length(total.compute)) / 1e3;
        row.comm_us = static_cast<double>(comm) / 1e3;
        row.overlapped_us = static_cast<double>(overlap) / 1e3;
        row.comm_not_overlapped_us = static_cast<double>(comm - overlap) / 1e3;
        row.free_us = static_cast<double>(w.end - w.start - busy) / 1e3;
      }
      if (!loader.empty()) row.dataloader_us = host_us(loader, w);
      if (!optimizer.empty()) row.optimizer_us = host_us(optimizer, w);
      store::insert(insert_step, run, row.rank, row.step, row.source, row.start_ns, row.dur_ns,
                    row.computing_us, row.comm_us, row.comm_not_overlapped_us, row.overlapped_us,
                    row.free_us, row.dataloader_us, row.optimizer_us, row.bubble_us);
      for (auto& [key, sets] : streams) {
        int64_t busy = sets.busy();
        auto opt = [](bool has, int64_t v) {
          return has ? std::optional<int64_t>(v) : std::nullopt;
        };
        insert_stream.insert(run, rank, w.step, opt(std::get<0>(key), std::get<1>(key)),
                             opt(std::get<2>(key), std::get<3>(key)), sets.kernels,
                             static_cast<double>(length(sets.compute)) / 1e3,
                             static_cast<double>(length(sets.comm)) / 1e3,
                             static_cast<double>(length(sets.copy)) / 1e3,
                             static_cast<double>(length(sets.set)) / 1e3,
                             static_cast<double>(busy) / 1e3,
                             static_cast<double>(w.end - w.start - busy) / 1e3);
      }
    }
  }
}

}  // namespace perfsage::analyzers::gpu
