// Step breakdown of GPU time (the tb_plugin / HTA "temporal breakdown"): per ProfilerStep (or
// the whole trace when there is none) and rank, the union of computation kernels, of
// communication kernels (NCCL/RCCL or kernels carrying collective args), their overlap, and the
// time the GPU does nothing; plus the same per stream.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/gpu/intervals.h"
#include "store/bind.h"
#include "store/block_scan.h"
#include "store/records.h"
#include "store/text_hash.h"

namespace perfsage::analyzers::gpu {
namespace {

enum class Class { compute, comm, copy, set };

struct DeviceSpan {
  int64_t start, end;
  std::optional<int64_t> device, stream;
  Class cls;
};

struct Window {
  int64_t step, start, end;
};

// Case-insensitive substring test; `lower` is already lower-case. No copy of the (often long,
// templated) kernel name per call.
bool contains_lower(std::string_view s, std::string_view lower) {
  // ASCII folding, not std::tolower: no locale lookup per byte of a 300-byte name.
  auto fold = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  if (lower.empty()) return true;
  if (lower.size() > s.size()) return false;
  for (size_t i = 0; i + lower.size() <= s.size(); ++i) {
    if (fold(s[i]) != lower[0]) continue;
    size_t k = 1;
    while (k < lower.size() && fold(s[i + k]) == lower[k]) ++k;
    if (k == lower.size()) return true;
  }
  return false;
}

// The SQL twin of this test is the run fact's `comm` CTE (engine/facts/types_run.cpp).
bool is_comm_kernel(std::string_view name, std::string_view args) {
  return contains_lower(name, "nccl") || contains_lower(name, "rccl") ||
         args.find("\"Collective name\"") != std::string_view::npos;
}

// The rank's kernels, copies and sets, read from the blocks (store/block_scan.h). Whether a
// kernel name is a collective's is remembered per name: names repeat, and the case-folding
// search over names hundreds of bytes long cost more than the rest of the load.
std::vector<DeviceSpan> load_device(store::Database& db, int64_t run, int64_t rank) {
  const auto& schema = store::device_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_name = col("name"), c_device = col("device"),
            c_stream = col("stream"), c_start = col("start_ns"), c_dur = col("dur_ns"),
            c_args = col("args");
  std::vector<DeviceSpan> out;
  std::unordered_map<std::string, bool, store::TextHash, std::equal_to<>> comm_name;
  for (const char* kind : {"kernel", "memcpy", "memset"}) {
    const bool kernel = kind[0] == 'k';
    std::vector<std::string_view> columns = {"rank", "device", "stream", "start_ns", "dur_ns"};
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
    std::vector<Interval> all;
    for (auto* v : {&compute, &comm, &copy, &set}) all.insert(all.end(), v->begin(), v->end());
    merge(all);
    return length(all);
  }
};

}  // namespace

void compute_gpu_breakdown(store::Database& db, int64_t run) {
  db.prepare("DELETE FROM steps WHERE run_id=?1 AND source='gpu_breakdown'").bind(1, run).run();
  db.prepare("DELETE FROM gpu_streams WHERE run_id=?1").bind(1, run).run();
  std::vector<int64_t> ranks;
  {
    auto st = db.prepare(
        "SELECT rank FROM device_events WHERE run_id=?1 UNION SELECT rank FROM steps WHERE "
        "run_id=?1 AND source='ProfilerStep'");
    st.bind(1, run);
    while (st.step()) ranks.push_back(st.int64(0));
  }
  auto insert_stream =
      db.prepare("INSERT INTO gpu_streams VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)");
  auto insert_step =
      db.prepare("INSERT INTO steps VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)");
  for (int64_t rank : ranks) {
    auto dev = load_device(db, run, rank);
    auto windows = load_windows(db, run, rank, dev);
    // Sorted by start, each window visits only the activities that can overlap it (those
    // starting after w.start - longest), not every activity of the rank: steps x activities
    // would be quadratic on long traces.
    std::sort(dev.begin(), dev.end(),
              [](const DeviceSpan& a, const DeviceSpan& b) { return a.start < b.start; });
    int64_t longest = 0;
    for (const auto& d : dev) longest = std::max(longest, d.end - d.start);
    auto [loader, optimizer] = load_host(db, run, rank, "enumerate(DataLoader)", "Optimizer.step");
    for (const Window& w : windows) {
      Sets total;
      std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, Sets> streams;
      auto first = std::lower_bound(dev.begin(), dev.end(), w.start - longest,
                                    [](const DeviceSpan& d, int64_t t) { return d.start < t; });
      for (auto it = first; it != dev.end() && it->start < w.end; ++it) {
        const DeviceSpan& d = *it;
        int64_t s = std::max(d.start, w.start), e = std::min(d.end, w.end);
        if (e <= s) continue;
        total.add(d, s, e);
        streams[{d.device.has_value(), d.device.value_or(0), d.stream.has_value(),
                 d.stream.value_or(0)}]
            .add(d, s, e);
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
        store::insert(insert_stream, run, rank, w.step, opt(std::get<0>(key), std::get<1>(key)),
                      opt(std::get<2>(key), std::get<3>(key)), sets.kernels,
                      static_cast<double>(length(sets.compute)) / 1e3,
                      static_cast<double>(length(sets.comm)) / 1e3,
                      static_cast<double>(length(sets.copy)) / 1e3,
                      static_cast<double>(length(sets.set)) / 1e3, static_cast<double>(busy) / 1e3,
                      static_cast<double>(w.end - w.start - busy) / 1e3);
      }
    }
  }
}

}  // namespace perfsage::analyzers::gpu
