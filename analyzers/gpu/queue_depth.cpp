// Queue depth per stream as HTA defines queue length (docs/gpu-definitions.md, "Queue depth"):
// +1 when the runtime or driver call that enqueues a GPU activity starts, -1 when that activity
// ends on the GPU, per stream. A deep queue means the host runs ahead of the GPU: the GPU is the
// bottleneck, and launch overhead cannot be what idles it. Activities without a runtime call of
// their correlation id (HTA drops them) are counted as unlinked; those enqueued by a graph launch
// (cudaGraphLaunch / hipGraphLaunch / cuGraphLaunch) are counted as graph-launched and enter the
// queue at the graph launch, as the runtime enqueues them.
#include <algorithm>
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

// Time-weighted statistics of the depth step function given its +1/-1 events.
void summarise(std::vector<std::pair<int64_t, int>>& events, StreamQueue& q) {
  if (events.empty()) return;
  // At equal times the GPU's completions count first: a kernel ending as the next call starts
  // leaves no overlap.
  std::sort(events.begin(), events.end());
  std::map<int64_t, int64_t> time_at;  // depth -> ns
  int64_t depth = 0, area = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    depth += events[i].second;
    q.max_depth = std::max(q.max_depth, depth);
    if (i + 1 < events.size()) {
      const int64_t dt = events[i + 1].first - events[i].first;
      time_at[depth] += dt;
      area += depth * dt;
    }
  }
  q.window = events.back().first - events.front().first;
  if (q.window <= 0) return;
  q.zero = time_at.count(0) ? time_at[0] : 0;
  q.mean = static_cast<double>(area) / static_cast<double>(q.window);
  int64_t seen = 0;
  for (const auto& [d, t] : time_at) {
    seen += t;
    if (2 * seen >= q.window) {
      q.median = static_cast<double>(d);
      break;
    }
  }
}

}  // namespace

void write_queue_depth(store::RowInserter& insert, int64_t run, int64_t rank,
                       const std::vector<DeviceSpan>& dev,
                       const std::unordered_map<int64_t, LaunchCall>& launches) {
  using StreamKey = std::pair<std::optional<int64_t>, std::optional<int64_t>>;
  std::map<StreamKey, std::vector<std::pair<int64_t, int>>> events;
  std::map<StreamKey, StreamQueue> queues;
  for (const auto& d : dev) {
    StreamKey key{d.device, d.stream};
    StreamQueue& q = queues[key];
    ++q.activities;
    q.busy += d.end - d.start;
    auto it = d.correlation ? launches.find(*d.correlation) : launches.end();
    if (it == launches.end() || it->second.start == std::numeric_limits<int64_t>::max()) {
      ++q.unlinked;
      continue;
    }
    if (it->second.graph) ++q.graph;
    // A call recorded after its activity ended (clock skew) enqueues nothing measurable.
    const int64_t enqueued = std::min(it->second.start, d.end);
    auto& ev = events[key];
    ev.emplace_back(enqueued, +1);
    ev.emplace_back(d.end, -1);
  }
  for (auto& [key, q] : queues) {
    auto ev = events.find(key);
    if (ev != events.end()) summarise(ev->second, q);
    auto us = [](int64_t ns) { return static_cast<double>(ns) / 1e3; };
    insert.insert(run, rank, key.first, key.second, q.activities, q.unlinked, q.graph, us(q.busy),
                  us(q.window), q.max_depth, q.median, q.mean,
                  q.window > 0 ? std::optional<double>(static_cast<double>(q.zero) /
                                                       static_cast<double>(q.window))
                               : std::nullopt);
  }
}

}  // namespace perfsage::analyzers::gpu
