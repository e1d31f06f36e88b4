#include "analyzers/gpu/device_spans.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyzers/core/like_match.h"
#include "store/block_scan.h"
#include "store/records.h"
#include "store/text_hash.h"
#include "store/text_ids.h"

namespace perfsage::analyzers::gpu {

bool is_comm_kernel(std::string_view name, std::string_view args) {
  return contains_folded(name, "nccl") || contains_folded(name, "rccl") ||
         args.find("\"Collective name\"") != std::string_view::npos;
}

namespace {

// is_comm_kernel over the kernels of a block scan. Whether a kernel name is a collective's is
// remembered per name: names repeat, and the case-folding search over names hundreds of bytes
// long cost more than the rest of a load; each block looks each distinct name and argument text
// up once, not each row's.
class CommKernels {
 public:
  CommKernels(int c_name, int c_args) : c_args_(c_args), names_(c_name), args_(c_args) {}
  void start_block() {
    names_.start_block();
    args_.start_block();
  }
  bool at(store::EventBlockReader& b, size_t row) {
    auto known_name = [&](std::string_view name) {
      auto it = comm_name_.find(name);
      if (it == comm_name_.end())
        it = comm_name_.emplace(std::string(name), is_comm_kernel(name, {})).first;
      return it->second;
    };
    auto comm_args = [](std::string_view args) { return is_comm_kernel({}, args); };
    return names_.at(b, row, known_name) ||
           (!b.is_null(c_args_, row) && args_.at(b, row, comm_args));
  }

 private:
  const int c_args_;
  std::unordered_map<std::string, bool, store::TextHash, std::equal_to<>> comm_name_;
  store::BlockTextValues<bool> names_, args_;
};

}  // namespace

std::set<int64_t> device_ranks(store::Database& db, int64_t run) {
  const auto& schema = store::device_event_schema();
  const int c_rank = store::column_index(schema, "rank");
  std::set<int64_t> ranks;
  store::BlockScan scan(db, schema, run, std::nullopt, {"rank"});
  while (scan.next()) {
    auto& b = scan.block();
    int64_t last = 0;
    for (size_t r = 0; r < b.rows(); ++r)
      if (r == 0 || b.int_at(c_rank, r) != last) ranks.insert(last = b.int_at(c_rank, r));
  }
  return ranks;
}

// The rank's kernels, copies and sets, read from the blocks (store/block_scan.h).
std::vector<DeviceSpan> load_device_spans(store::Database& db, int64_t run, int64_t rank) {
  const auto& schema = store::device_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_name = col("name"), c_device = col("device"),
            c_stream = col("stream"), c_start = col("start_ns"), c_dur = col("dur_ns"),
            c_args = col("args"), c_corr = col("correlation");
  std::vector<DeviceSpan> out;
  size_t rows = 0;
  for (const char* kind : {"kernel", "memcpy", "memset"})
    rows += store::block_rows(db, schema, run, std::string(kind));
  out.reserve(rows);  // every rank's: the pages of other ranks' rows are never touched
  CommKernels comm(c_name, c_args);
  for (const char* kind : {"kernel", "memcpy", "memset"}) {
    const bool kernel = kind[0] == 'k';
    const Class other = std::string_view(kind) == "memcpy" ? Class::copy : Class::set;
    std::vector<std::string_view> columns = {"rank",     "device", "stream",
                                             "start_ns", "dur_ns", "correlation"};
    if (kernel) columns.insert(columns.end(), {"name", "args"});
    store::BlockScan scan(db, schema, run, std::string(kind), columns);
    while (scan.next()) {
      auto& b = scan.block();
      comm.start_block();
      for (size_t r = 0; r < b.rows(); ++r) {
        if (b.int_at(c_rank, r) != rank) continue;
        DeviceSpan d;
        d.start = b.int_at(c_start, r);
        d.end = d.start + b.int_at(c_dur, r);
        if (!b.is_null(c_device, r)) d.device = b.int_at(c_device, r);
        if (!b.is_null(c_stream, r)) d.stream = b.int_at(c_stream, r);
        if (!b.is_null(c_corr, r)) d.correlation = b.int_at(c_corr, r);
        if (!kernel)
          d.cls = other;
        else
          d.cls = comm.at(b, r) ? Class::comm : Class::compute;
        out.push_back(d);
      }
    }
  }
  return out;
}

LaunchCalls::LaunchCalls(const std::vector<DeviceSpan>& dev) {
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  size_t ids = 0;
  for (const auto& d : dev)
    if (d.correlation) {
      lo = std::min(lo, *d.correlation);
      hi = std::max(hi, *d.correlation);
      ++ids;
    }
  if (ids == 0) return;
  lo_ = lo;
  hi_ = hi;
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  dense_ = span < 64 * ids + 4096;
  if (dense_) {
    bits_.assign(span / 64 + 1, 0);
    for (const auto& d : dev)
      if (d.correlation) {
        const uint64_t at = static_cast<uint64_t>(*d.correlation) - static_cast<uint64_t>(lo_);
        bits_[at / 64] |= uint64_t{1} << (at % 64);
      }
    before_.resize(bits_.size());
    uint32_t count = 0;
    for (size_t w = 0; w < bits_.size(); ++w) {
      before_[w] = count;
      count += static_cast<uint32_t>(std::popcount(bits_[w]));
    }
    entries_.reserve(count);
    for (size_t w = 0; w < bits_.size(); ++w)
      for (uint64_t word = bits_[w]; word != 0; word &= word - 1)
        entries_.emplace_back(static_cast<int64_t>(static_cast<uint64_t>(lo_) + w * 64 +
                                                   static_cast<uint64_t>(std::countr_zero(word))),
                              LaunchCall{});
    return;
  }
  sparse_.reserve(ids);
  for (const auto& d : dev)
    if (d.correlation &&
        sparse_.try_emplace(*d.correlation, static_cast<uint32_t>(entries_.size())).second)
      entries_.emplace_back(*d.correlation, LaunchCall{});
}

const LaunchCalls::Entry* LaunchCalls::find(int64_t correlation) const {
  if (correlation < lo_ || correlation > hi_) return end();
  if (dense_) {
    const uint64_t at = static_cast<uint64_t>(correlation) - static_cast<uint64_t>(lo_);
    const uint64_t word = bits_[at / 64], bit = uint64_t{1} << (at % 64);
    if ((word & bit) == 0) return end();
    return &entries_[before_[at / 64] + static_cast<uint32_t>(std::popcount(word & (bit - 1)))];
  }
  auto it = sparse_.find(correlation);
  return it == sparse_.end() ? end() : &entries_[it->second];
}

LaunchCalls launch_calls(store::Database& db, int64_t run, int64_t rank,
                         const std::vector<DeviceSpan>& dev) {
  LaunchCalls out(dev);
  if (out.size() == 0) return out;
  const auto& schema = store::host_event_schema();
  const int c_rank = store::column_index(schema, "rank"),
            c_name = store::column_index(schema, "name"),
            c_start = store::column_index(schema, "start_ns"),
            c_corr = store::column_index(schema, "correlation");
  auto graph_launch = [](std::string_view name) {
    return name.find("GraphLaunch") != std::string_view::npos;
  };
  store::BlockTextValues<bool> graph(c_name);
  for (const char* kind : {"runtime", "driver"}) {
    store::BlockScan scan(db, schema, run, std::string(kind),
                          {"rank", "name", "start_ns", "correlation"});
    while (scan.next()) {
      auto& b = scan.block();
      graph.start_block();
      for (size_t r = 0; r < b.rows(); ++r) {
        if (b.int_at(c_rank, r) != rank || b.is_null(c_corr, r)) continue;
        LaunchCall* call = out.call(b.int_at(c_corr, r));
        if (call == nullptr) continue;
        const int64_t start = b.int_at(c_start, r);
        if (start < call->start) {
          call->start = start;
          call->graph = graph.at(b, r, graph_launch);
        }
      }
    }
  }
  return out;
}

void for_each_comm_kernel(store::Database& db, int64_t run,
                          const std::function<void(const CommKernel&)>& fn) {
  const auto& schema = store::device_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_name = col("name"), c_start = col("start_ns"),
            c_dur = col("dur_ns"), c_args = col("args");
  CommKernels comm(c_name, c_args);
  store::BlockScan scan(db, schema, run, std::string("kernel"),
                        {"rank", "name", "start_ns", "dur_ns", "args"});
  while (scan.next()) {
    auto& b = scan.block();
    comm.start_block();
    for (size_t r = 0; r < b.rows(); ++r) {
      if (!comm.at(b, r)) continue;
      std::string_view args = b.is_null(c_args, r) ? std::string_view() : b.text_at(c_args, r);
      fn({b.int_at(c_rank, r), b.int_at(c_start, r), b.int_at(c_dur, r), b.text_at(c_name, r),
          args});
    }
  }
}

}  // namespace perfsage::analyzers::gpu
