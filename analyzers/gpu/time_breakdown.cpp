// Per-rank GPU time as Holistic Trace Analysis defines it (docs/gpu-definitions.md), over the
// rank's whole trace (every step, none dropped):
//  * temporal breakdown (get_temporal_breakdown): the window from the first GPU activity's
//    start to the last one's end; busy = union of all activities; compute = union of
//    computation kernels; non-compute = busy - compute; idle = window - busy;
//  * communication/computation overlap (get_comm_comp_overlap): union(comm) ∩ union(compute)
//    over union(comm);
//  * idle time by cause (get_idle_time_breakdown), per stream in start order: the gap before
//    an activity is host wait when its launch call started after the previous activity on the
//    stream ended (the CPU was late), kernel wait when shorter than 30 µs (back-to-back launch
//    overhead), other otherwise; summed over the streams.
#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "analyzers/gpu/device_spans.h"
#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/gpu/intervals.h"
#include "analyzers/gpu/tables.h"
#include "store/bind.h"

namespace perfsage::analyzers::gpu {

void compute_time_breakdown(store::Database& db, int64_t run, const GpuAnalysisOptions& opt) {
  db.prepare("DELETE FROM gpu_time_breakdown WHERE run_id=?1").bind(1, run).run();
  // From the blocks' rank column, in rank order (SQL's DISTINCT over every device event took
  // 25 ms of the 1 GB trace).
  const std::set<int64_t> ranks = device_ranks(db, run);
  store::RowInserter insert(db, tables::time_breakdown());
  // The queue depth reads the same activities and launch calls: written in the same pass.
  db.prepare("DELETE FROM gpu_queues WHERE run_id=?1").bind(1, run).run();
  store::RowInserter insert_queue(db, tables::queues());
  for (int64_t rank : ranks) {
    auto dev = load_device_spans(db, run, rank);
    if (dev.empty()) continue;
    std::vector<Interval> all, compute, comm;
    int64_t lo = dev.front().start, hi = dev.front().end;
    for (const auto& d : dev) {
      lo = std::min(lo, d.start);
      hi = std::max(hi, d.end);
      all.emplace_back(d.start, d.end);
      if (d.cls == Class::compute) compute.emplace_back(d.start, d.end);
      if (d.cls == Class::comm) comm.emplace_back(d.start, d.end);
    }
    merge(all);
    merge(compute);
    merge(comm);
    const int64_t busy = length(all), compute_ns = length(compute), comm_ns = length(comm);
    const int64_t overlap = intersection(compute, comm);

    auto launched = launch_calls(db, run, rank, dev);
    write_queue_depth(insert_queue, run, rank, dev, launched);
    std::map<std::optional<int64_t>, std::vector<const DeviceSpan*>> streams;
    for (const auto& d : dev) streams[d.stream].push_back(&d);
    int64_t gaps = 0, host_wait = 0, kernel_wait = 0, other = 0;
    for (auto& [stream, list] : streams) {
      std::stable_sort(list.begin(), list.end(), [](const DeviceSpan* a, const DeviceSpan* b) {
        return a->start < b->start;
      });
      for (size_t i = 1; i < list.size(); ++i) {
        const int64_t prev_end = list[i - 1]->end, gap = list[i]->start - prev_end;
        ++gaps;
        auto call = list[i]->correlation ? launched.find(*list[i]->correlation) : launched.end();
        bool host = call != launched.end() &&
                    call->second.start != std::numeric_limits<int64_t>::max() &&
                    call->second.start > prev_end;
        if (host)
          host_wait += gap;
        else if (gap < opt.kernel_wait_ns)
          kernel_wait += gap;
        else
          other += gap;
      }
    }
    auto us = [](int64_t ns) { return static_cast<double>(ns) / 1e3; };
    insert.insert(run, rank, us(hi - lo), us(busy), us(compute_ns), us(comm_ns), us(overlap),
                  us(hi - lo - busy), static_cast<int64_t>(streams.size()), gaps, us(host_wait),
                  us(kernel_wait), us(other), us(opt.kernel_wait_ns));
  }
}

}  // namespace perfsage::analyzers::gpu
