// A rank's GPU activities (kernels, copies, sets) read from the store's blocks, classified as
// the GPU analyzers need them: computation, communication (collective kernels), copy, set.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "store/database.h"
#include "store/derived_tables.h"

namespace perfsage::analyzers::gpu {

enum class Class { compute, comm, copy, set };

struct DeviceSpan {
  int64_t start, end;
  std::optional<int64_t> device, stream, correlation;
  Class cls;
};

// NCCL/RCCL kernel names, or kernels carrying Kineto's "Collective name" argument. The SQL twin
// of this test is the run fact's `comm` CTE (engine/facts/types_run.cpp).
bool is_comm_kernel(std::string_view name, std::string_view args);

// The distinct ranks of `run`'s device activities (any kind), ascending; from the blocks' rank
// column, without a value per row through SQL.
std::set<int64_t> device_ranks(store::Database& db, int64_t run);

// Every kernel, copy and set of `rank` in `run`, unsorted.
std::vector<DeviceSpan> load_device_spans(store::Database& db, int64_t run, int64_t rank);

// The runtime or driver call that enqueued an activity: the earliest call of its correlation
// id, and whether it was a graph launch (cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch).
struct LaunchCall {
  int64_t start = std::numeric_limits<int64_t>::max();  // max: no call recorded
  bool graph = false;
};
// The launch calls of a rank's activities by correlation id, looked up as in a map (find, end).
// CUPTI numbers every runtime call, so the activities' ids are a fraction of their range (the
// 1 GB DDP trace: 490 k of 7.5 M): up to 64 ids of range an activity, a bitmap over the range
// with each word's count of ids before it finds an id's entry by index (0.19 bytes an id of
// range: 1.4 MB there), instead of hashing each lookup; sparser ids go through a hash map.
class LaunchCalls {
 public:
  using Entry = std::pair<const int64_t, LaunchCall>;
  // An entry without a call for each correlation id of `dev`.
  explicit LaunchCalls(const std::vector<DeviceSpan>& dev);
  const Entry* find(int64_t correlation) const;
  const Entry* end() const { return entries_.data() + entries_.size(); }
  size_t size() const { return entries_.size(); }
  // The entry of `correlation`, nullptr when it has none.
  LaunchCall* call(int64_t correlation) {
    const Entry* e = find(correlation);
    return e == end() ? nullptr : &entries_[static_cast<size_t>(e - entries_.data())].second;
  }

 private:
  int64_t lo_ = 0, hi_ = -1;
  bool dense_ = false;
  std::vector<uint64_t> bits_;                    // dense: bit id - lo_ set for each id
  std::vector<uint32_t> before_;                  // dense: the ids in the words before each word
  std::unordered_map<int64_t, uint32_t> sparse_;  // otherwise: id -> index in entries_
  std::vector<Entry> entries_;  // dense: in id order; otherwise in order of first activity
};
// The enqueueing calls of `dev`'s correlation ids on `rank`.
LaunchCalls launch_calls(store::Database& db, int64_t run, int64_t rank,
                         const std::vector<DeviceSpan>& dev);

// Writes HTA's queue length per stream of `rank` (depth statistics, unlinked and graph-launched
// activities) into gpu_queues through `insert` (queue_depth.cpp).
void write_queue_depth(store::RowInserter& insert, int64_t run, int64_t rank,
                       const std::vector<DeviceSpan>& dev, const LaunchCalls& launches);

// One communication kernel of a run (any rank), as the collective analyzers read it; the views
// are valid during the callback only.
struct CommKernel {
  int64_t rank, start, dur;
  std::string_view name, args;
};
// Communication kernels by collective type and rank, each rank's as [start, end) in ns.
using CollectiveSpans =
    std::map<std::string, std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>>>;
// Aligns the collectives of each type across ranks and writes gpu_collective_ranks
// (collective_alignment.cpp); sorts each rank's spans by start.
void write_collective_alignment(store::Database& db, int64_t run, CollectiveSpans& by_type);
// Keeps each rank's spans (gpu_collective_spans), by rank, type and start.
void write_collective_spans(store::Database& db, int64_t run, const CollectiveSpans& by_type);

// Calls `fn` for every communication kernel of `run` (is_comm_kernel), in storage order.
void for_each_comm_kernel(store::Database& db, int64_t run,
                          const std::function<void(const CommKernel&)>& fn);

}  // namespace perfsage::analyzers::gpu
