#include "analyzers/gpu/device_spans.h"

#include <string>
#include <unordered_map>

#include "analyzers/core/like_match.h"
#include "store/block_scan.h"
#include "store/records.h"
#include "store/text_hash.h"

namespace perfsage::analyzers::gpu {

bool is_comm_kernel(std::string_view name, std::string_view args) {
  return contains_folded(name, "nccl") || contains_folded(name, "rccl") ||
         args.find("\"Collective name\"") != std::string_view::npos;
}

// The rank's kernels, copies and sets, read from the blocks (store/block_scan.h). Whether a
// kernel name is a collective's is remembered per name: names repeat, and the case-folding
// search over names hundreds of bytes long cost more than the rest of the load.
std::vector<DeviceSpan> load_device_spans(store::Database& db, int64_t run, int64_t rank) {
  const auto& schema = store::device_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_name = col("name"), c_device = col("device"),
            c_stream = col("stream"), c_start = col("start_ns"), c_dur = col("dur_ns"),
            c_args = col("args"), c_corr = col("correlation");
  std::vector<DeviceSpan> out;
  std::unordered_map<std::string, bool, store::TextHash, std::equal_to<>> comm_name;
  for (const char* kind : {"kernel", "memcpy", "memset"}) {
    const bool kernel = kind[0] == 'k';
    std::vector<std::string_view> columns = {"rank",     "device", "stream",
                                             "start_ns", "dur_ns", "correlation"};
    if (kernel) columns.insert(columns.end(), {"name", "args"});
    store::BlockScan scan(db, schema, run, std::string(kind), columns);
    while (scan.next()) {
      auto& b = scan.block();
      for (size_t r = 0; r < b.rows(); ++r) {
        if (b.int_at(c_rank, r) != rank) continue;
        DeviceSpan d;
        d.start = b.int_at(c_start, r);
        d.end = d.start + b.int_at(c_dur, r);
        if (!b.is_null(c_device, r)) d.device = b.int_at(c_device, r);
        if (!b.is_null(c_stream, r)) d.stream = b.int_at(c_stream, r);
        if (!b.is_null(c_corr, r)) d.correlation = b.int_at(c_corr, r);
        if (!kernel) {
          d.cls = std::string_view(kind) == "memcpy" ? Class::copy : Class::set;
        } else {
          std::string_view name = b.text_at(c_name, r);
          auto it = comm_name.find(name);
          if (it == comm_name.end())
            it = comm_name.emplace(std::string(name), is_comm_kernel(name, {})).first;
          std::string_view args = b.is_null(c_args, r) ? std::string_view() : b.text_at(c_args, r);
          d.cls = it->second || is_comm_kernel({}, args) ? Class::comm : Class::compute;
        }
        out.push_back(d);
      }
    }
  }
  return out;
}

std::unordered_map<int64_t, LaunchCall> launch_calls(store::Database& db, int64_t run, int64_t rank,
                                                     const std::vector<DeviceSpan>& dev) {
  std::unordered_map<int64_t, LaunchCall> out;
  for (const auto& d : dev)
    if (d.correlation) out.try_emplace(*d.correlation);
  if (out.empty()) return out;
  const auto& schema = store::host_event_schema();
  const int c_rank = store::column_index(schema, "rank"),
            c_name = store::column_index(schema, "name"),
            c_start = store::column_index(schema, "start_ns"),
            c_corr = store::column_index(schema, "correlation");
  for (const char* kind : {"runtime", "driver"}) {
    store::BlockScan scan(db, schema, run, std::string(kind),
                          {"rank", "name", "start_ns", "correlation"});
    while (scan.next()) {
      auto& b = scan.block();
      for (size_t r = 0; r < b.rows(); ++r) {
        if (b.int_at(c_rank, r) != rank || b.is_null(c_corr, r)) continue;
        auto it = out.find(b.int_at(c_corr, r));
        if (it == out.end()) continue;
        const int64_t start = b.int_at(c_start, r);
        if (start < it->second.start) {
          it->second.start = start;
          it->second.graph = b.text_at(c_name, r).find("GraphLaunch") != std::string_view::npos;
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
  std::unordered_map<std::string, bool, store::TextHash, std::equal_to<>> comm_name;
  store::BlockScan scan(db, schema, run, std::string("kernel"),
                        {"rank", "name", "start_ns", "dur_ns", "args"});
  while (scan.next()) {
    auto& b = scan.block();
    for (size_t r = 0; r < b.rows(); ++r) {
      std::string_view name = b.text_at(c_name, r);
      std::string_view args = b.is_null(c_args, r) ? std::string_view() : b.text_at(c_args, r);
      auto it = comm_name.find(name);
      if (it == comm_name.end())
        it = comm_name.emplace(std::string(name), is_comm_kernel(name, {})).first;
      if (!it->second && !is_comm_kernel({}, args)) continue;
      fn({b.int_at(c_rank, r), b.int_at(c_start, r), b.int_at(c_dur, r), name, args});
    }
  }
}

}  // namespace perfsage::analyzers::gpu
