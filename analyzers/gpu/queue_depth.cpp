// Queue depth per stream as HTA defines queue length (docs/gpu-definitions.md, "Queue depth"):
// +1 when the runtime or driver call that enqueues a GPU activity starts, -1 when that activity
// ends on the GPU, per stream. A deep queue means the host runs ahead of the GPU: the GPU is the
// bottleneck, and launch overhead cannot be what idles it. Activities without a runtime call of
// their correlation id (HTA drops them) are counted as unlinked; those enqueued by a graph launch
// (cudaGraphLaunch / hipGraphLaunch / cuGraphLaunch) are counted as graph-launched and enter the
// queue at the graph launch, as the runtime enqueues them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "analyzers/gpu/device_spans.h"
#include "analyzers/gpu/gpu_analysis.h"
#include "store/bind.h"

namespace perfsage::analyzers::gpu {
namespace {

struct StreamQueue {
  int64_t activities = 0, unlinked = 0, graph = 0, busy = 0, window = 0, zero = 0;
  int64_t max_depth = 0;
  double median = 0, mean = 0;
};

// A stream's enqueue times (+1) and activity ends (-1).
struct StreamEvents {
  std::vector<int64_t> enqueued, ended;
};

// Sorts `v`. Made of a few ascending runs (the activities as loaded: 69 in 446 k on the 1 GB
// trace's busiest stream), it is sorted by merging the runs pairwise, log2(runs) passes.
void sort_runs(std::vector<int64_t>& v) {
  std::vector<size_t> bounds{0};
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] < v[i - 1]) bounds.push_back(i);
  bounds.push_back(v.size());
  if (bounds.size() <= 2) return;
  if (bounds.size() > v.size() / 64) {
    std::sort(v.begin(), v.end());
    return;
  }
  std::vector<int64_t> merged(v.size());
  auto at = [](std::vector<int64_t>& x, size_t i) {
    return x.begin() + static_cast<std::ptrdiff_t>(i);
  };
  while (bounds.size() > 2) {
    std::vector<size_t> next{0};
    for (size_t k = 0; k + 1 < bounds.size(); k += 2) {
      const size_t lo = bounds[k], mid = bounds[k + 1],
                   hi = k + 2 < bounds.size() ? bounds[k + 2] : mid;
      std::merge(at(v, lo), at(v, mid), at(v, mid), at(v, hi), at(merged, lo));
      next.push_back(hi);
    }
    v.swap(merged);
    bounds.swap(next);
  }
}

// Calls fn(time, change) for the events in time order; at equal times the GPU's completions
// count first: a kernel ending as the next call starts leaves no overlap. Both lists are mostly
// in order already (activities in trace order): sorting them apart and walking both costs less
// than sorting the events together.
template <typename Fn>
void walk(StreamEvents& ev, Fn&& fn) {
  for (auto* v : {&ev.enqueued, &ev.ended}) sort_runs(*v);
  size_t i = 0, j = 0;
  const auto &ends = ev.ended, &enqueued = ev.enqueued;
  while (i < ends.size() || j < enqueued.size()) {
    if (i < ends.size() && (j == enqueued.size() || ends[i] <= enqueued[j]))
      fn(ends[i++], -1);
    else
      fn(enqueued[j++], +1);
  }
}

// Time-weighted statistics of the depth step function given its +1/-1 events.
void summarise(StreamEvents& ev, StreamQueue& q) {
  if (ev.enqueued.empty()) return;
  // The depth's range first (a call recorded after its activity ended leaves the depth below
  // zero for an instant), so that the time at each depth is a vector, not a map.
  int64_t depth = 0, lowest = 0;
  walk(ev, [&](int64_t, int change) {
    depth += change;
    lowest = std::min(lowest, depth);
    q.max_depth = std::max(q.max_depth, depth);
  });
  std::vector<int64_t> time_at(static_cast<size_t>(q.max_depth - lowest + 1));  // depth -> ns
  int64_t area = 0, first = 0, last = 0;
  bool started = false;
  depth = 0;
  walk(ev, [&](int64_t t, int change) {
    if (started) {
      const int64_t dt = t - last;
      time_at[static_cast<size_t>(depth - lowest)] += dt;
      area += depth * dt;
    } else {
      first = t;
      started = true;
    }
    last = t;
    depth += change;
  });
  q.window = last - first;
  if (q.window <= 0) return;
  q.zero = time_at[static_cast<size_t>(-lowest)];
  q.mean = static_cast<double>(area) / static_cast<double>(q.window);
  int64_t seen = 0;
  for (size_t d = 0; d < time_at.size(); ++d) {
    seen += time_at[d];
    if (2 * seen >= q.window) {
      q.median = static_cast<double>(static_cast<int64_t>(d) + lowest);
      break;
    }
  }
}

}  // namespace

void write_queue_depth(store::RowInserter& insert, int64_t run, int64_t rank,
                       const std::vector<DeviceSpan>& dev, const LaunchCalls& launches) {
  using StreamKey = std::pair<std::optional<int64_t>, std::optional<int64_t>>;
  std::map<StreamKey, uint32_t> index;  // in key order: the rows' order
  std::vector<StreamQueue> queues;
  // Activities of a stream come in runs: the last one's stream is looked up again only when
  // another follows.
  StreamKey last_key;
  uint32_t last = UINT32_MAX;
  auto stream_of = [&](const DeviceSpan& d) {
    StreamKey key{d.device, d.stream};
    if (last == UINT32_MAX || key != last_key) {
      last = index.try_emplace(key, static_cast<uint32_t>(index.size())).first->second;
      last_key = key;
    }
    return last;
  };
  for (const auto& d : dev) {
    const uint32_t s = stream_of(d);
    if (s == queues.size()) queues.emplace_back();
    ++queues[s].activities;
  }
  std::vector<StreamEvents> events(queues.size());
  for (size_t s = 0; s < queues.size(); ++s) {
    events[s].enqueued.reserve(static_cast<size_t>(queues[s].activities));
    events[s].ended.reserve(static_cast<size_t>(queues[s].activities));
  }
  for (const auto& d : dev) {
    const uint32_t s = stream_of(d);
    StreamQueue& q = queues[s];
    q.busy += d.end - d.start;
    auto it = d.correlation ? launches.find(*d.correlation) : launches.end();
    if (it == launches.end() || it->second.start == std::numeric_limits<int64_t>::max()) {
      ++q.unlinked;
      continue;
    }
    if (it->second.graph) ++q.graph;
    // A call recorded after its activity ended (clock skew) enqueues nothing measurable.
    events[s].enqueued.push_back(std::min(it->second.start, d.end));
    events[s].ended.push_back(d.end);
  }
  for (const auto& [key, s] : index) {
    StreamQueue& q = queues[s];
    summarise(events[s], q);
    auto us = [](int64_t ns) { return static_cast<double>(ns) / 1e3; };
    insert.insert(run, rank, key.first, key.second, q.activities, q.unlinked, q.graph, us(q.busy),
                  us(q.window), q.max_depth, q.median, q.mean,
                  q.window > 0 ? std::optional<double>(static_cast<double>(q.zero) /
                                                       static_cast<double>(q.window))
                               : std::nullopt);
  }
}

}  // namespace perfsage::analyzers::gpu
