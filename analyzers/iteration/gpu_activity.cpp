// Device activity per (rank, device): the union of kernel, memcpy and memset intervals over
// the window from the first activity's start to the last one's end. Re-expresses Nsight
// Systems' gpu_gaps (gaps >= 500 ms) and gpu_time_util (30 equal chunks, < 50 % in use) and
// HTA's idle time on Kineto and Ascend timelines.
#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "analyzers/iteration/iteration.h"
#include "analyzers/iteration/tables.h"
#include "store/block_scan.h"
#include "store/database.h"

namespace perfsage::analyzers::iteration {

std::vector<Interval> merge_intervals(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) {
    return a.start < b.start || (a.start == b.start && a.end < b.end);
  });
  std::vector<Interval> out;
  for (const auto& i : v) {
    if (i.end <= i.start) continue;  // zero-length activity adds no busy time
    if (!out.empty() && i.start <= out.back().end)
      out.back().end = std::max(out.back().end, i.end);
    else
      out.push_back(i);
  }
  return out;
}

namespace {

struct Stats {
  int64_t window_ns = 0, busy_ns = 0, gaps = 0, gap_total_ns = 0, longest_gap_ns = 0;
  int low_chunks = 0;
};

Stats stats_of(const std::vector<Interval>& merged, const GpuActivityOptions& opt) {
  Stats s;
  if (merged.empty()) return s;
  int64_t first = merged.front().start, last = merged.back().end;
  s.window_ns = last - first;
  for (size_t i = 0; i < merged.size(); ++i) {
    s.busy_ns += merged[i].end - merged[i].start;
    if (i == 0) continue;
    int64_t gap = merged[i].start - merged[i - 1].end;
    s.longest_gap_ns = std::max(s.longest_gap_ns, gap);
    if (gap >= opt.gap_threshold_ns) {
      ++s.gaps;
      s.gap_total_ns += gap;
    }
  }
  // Busy time per equal chunk of the window; intervals are disjoint, so one sweep suffices.
  if (opt.chunks > 0 && s.window_ns > 0) {
    size_t k = 0;
    for (int c = 0; c < opt.chunks; ++c) {
      int64_t cs = first + s.window_ns * c / opt.chunks;
      int64_t ce = first + s.window_ns * (c + 1) / opt.chunks;
      while (k < merged.size() && merged[k].end <= cs) ++k;
      int64_t busy = 0;
      for (size_t j = k; j < merged.size() && merged[j].start < ce; ++j)
        busy += std::min(ce, merged[j].end) - std::max(cs, merged[j].start);
      if (ce > cs &&
          static_cast<double>(busy) / static_cast<double>(ce - cs) < opt.low_chunk_utilisation)
        ++s.low_chunks;
    }
  }
  return s;
}

}  // namespace

void compute_gpu_activity(store::Database& db, int64_t run_id, const GpuActivityOptions& opt) {
  db.prepare("DELETE FROM device_activity WHERE run_id=?1").bind(1, run_id).run();
  std::map<std::pair<int64_t, int64_t>, std::vector<Interval>> by_device;
  // From the event blocks: a GB of trace holds millions of kernels. The order rows arrive in
  // does not matter: each device's intervals are sorted before they are merged.
  const auto& schema = store::device_event_schema();
  const int c_rank = store::column_index(schema, "rank"),
            c_device = store::column_index(schema, "device"),
            c_start = store::column_index(schema, "start_ns"),
            c_dur = store::column_index(schema, "dur_ns");
  for (const char* kind : {"kernel", "memcpy", "memset"}) {
    store::BlockScan scan(db, schema, run_id, std::string(kind),
                          {"rank", "device", "start_ns", "dur_ns"});
    std::pair<int64_t, int64_t> last_key{0, 0};
    std::vector<Interval>* last = nullptr;
    while (scan.next()) {
      auto& b = scan.block();
      for (size_t r = 0; r < b.rows(); ++r) {
        if (b.is_null(c_dur, r) || b.int_at(c_dur, r) < 0) continue;
        std::pair<int64_t, int64_t> key{b.is_null(c_rank, r) ? 0 : b.int_at(c_rank, r),
                                        b.is_null(c_device, r) ? -1 : b.int_at(c_device, r)};
        if (last == nullptr || key != last_key) {
          last = &by_device[key];
          last_key = key;
        }
        int64_t start = b.is_null(c_start, r) ? 0 : b.int_at(c_start, r);
        last->push_back({start, start + b.int_at(c_dur, r)});
      }
    }
  }
  store::RowInserter ins(db, tables::device_activity());
  for (auto& [key, intervals] : by_device) {
    int64_t n = static_cast<int64_t>(intervals.size());
    Stats s = stats_of(merge_intervals(std::move(intervals)), opt);
    ins.insert(run_id, key.first,
               key.second >= 0 ? std::optional<int64_t>(key.second) : std::nullopt, n,
               s.window_ns / 1000.0, s.busy_ns / 1000.0,
               s.window_ns > 0 ? static_cast<double>(s.busy_ns) / s.window_ns : 0.0,
               opt.gap_threshold_ns / 1000.0, s.gaps, s.gap_total_ns / 1000.0,
               s.longest_gap_ns / 1000.0, opt.chunks, s.low_chunks, opt.low_chunk_utilisation);
  }
}

}  // namespace perfsage::analyzers::iteration
