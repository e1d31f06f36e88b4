#include "analyzers/roofline/launch_pass.h"

#include <algorithm>
#include <optional>
#include <tuple>

#include "store/block_scan.h"

namespace perfsage::analyzers::roofline {

uint32_t TextIds::id(std::string_view text) {
  auto it = ids_.find(text);
  if (it == ids_.end()) {
    it = ids_.emplace(std::string(text), static_cast<uint32_t>(texts_.size())).first;
    texts_.push_back(&it->first);
  }
  return it->second;
}

namespace {

void read_kernels(store::Database& db, int64_t run_id, LaunchPass& out) {
  const auto& schema = store::device_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_ext = col("external_id"), c_name = col("name"),
            c_dur = col("dur_ns"), c_corr = col("correlation");
  store::BlockScan scan(db, schema, run_id, std::string("kernel"),
                        {"rank", "external_id", "name", "dur_ns", "correlation"});
  LaunchOps launches(db, run_id);
  while (scan.next()) {
    auto& b = scan.block();
    for (size_t r = 0; r < b.rows(); ++r) {
      int64_t dur = b.int_at(c_dur, r);
      out.kernel_ns += dur;
      uint32_t name = out.kernel_names.id(b.text_at(c_name, r));
      const KernelInstance* instance = nullptr;
      if (!b.is_null(c_ext, r)) {
        int64_t rank = b.int_at(c_rank, r);
        std::optional<int64_t> corr;
        if (!b.is_null(c_corr, r)) corr = b.int_at(c_corr, r);
        KernelInstance& in =
            out.instances[{rank, launches.op_id(rank, b.int_at(c_ext, r), corr)}];
        instance = &in;
        in.dur_ns += dur;
        if (dur > in.longest) {
          in.longest = dur;
          in.kernel = name;
        }
      }
      out.kernels.push_back({instance, name, dur});
    }
  }
}

void read_cpu_ops(store::Database& db, int64_t run_id,
                  const std::function<bool(const std::string&)>& wants_dims, LaunchPass& out) {
  const auto& schema = store::host_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_tid = col("tid"), c_start = col("start_ns"),
            c_name = col("name"), c_dur = col("dur_ns"), c_ext = col("external_id"),
            c_dims = col("input_dims"), c_types = col("input_types");
  std::vector<bool> keeps_dims;  // by op name id
  // The least of each field among ops sharing a key, as SQL's min() did.
  auto keep_min = [](std::optional<std::string>& have, store::EventBlockReader& b, int c,
                     size_t r) {
    if (b.is_null(c, r)) return;
    std::string_view v = b.text_at(c, r);
    if (!have || v < *have) have = std::string(v);
  };
  store::BlockScan scan(
      db, schema, run_id, std::string("cpu_op"),
      {"rank", "tid", "start_ns", "name", "dur_ns", "external_id", "input_dims", "input_types"});
  while (scan.next()) {
    auto& b = scan.block();
    for (size_t r = 0; r < b.rows(); ++r) {
      int64_t rank = b.int_at(c_rank, r), host_ns = b.int_at(c_dur, r), ns = host_ns;
      std::string_view name_text = b.text_at(c_name, r);
      uint32_t name = out.op_names.id(name_text);
      if (name == keeps_dims.size()) keeps_dims.push_back(wants_dims(out.op_names.text(name)));
      if (!b.is_null(c_ext, r)) {
        auto it = out.instances.find({rank, b.int_at(c_ext, r)});
        if (it != out.instances.end()) {
          KernelInstance& in = it->second;
          ns = in.dur_ns;
          if (!in.has_op || name_text < in.op.name) in.op.name = std::string(name_text);
          in.has_op = true;
          keep_min(in.op.dims, b, c_dims, r);
          keep_min(in.op.types, b, c_types, r);
        }
      }
      int64_t start = b.int_at(c_start, r);
      uint32_t dims = keeps_dims[name] && !b.is_null(c_dims, r)
                          ? out.op_dims.id(b.text_at(c_dims, r))
                          : TextIds::kNone;
      out.cpu_ops.push_back({rank, b.is_null(c_tid, r) ? 0 : b.int_at(c_tid, r), start,
                             start + host_ns, name, dims, ns});
    }
  }
  // Sorted here, not by SQL's ORDER BY: SQLite's sorter copies every row with its name (a
  // million rows per GB of trace); this sorts 48-byte entries over interned names.
  std::stable_sort(out.cpu_ops.begin(), out.cpu_ops.end(),
                   [](const LaunchPass::CpuOp& a, const LaunchPass::CpuOp& b) {
                     return std::tie(a.rank, a.tid, a.start) < std::tie(b.rank, b.tid, b.start);
                   });
}

}  // namespace

LaunchPass read_launches(store::Database& db, int64_t run_id,
                         const std::function<bool(const std::string&)>& wants_dims) {
  LaunchPass out;
  read_kernels(db, run_id, out);
  read_cpu_ops(db, run_id, wants_dims, out);
  return out;
}

}  // namespace perfsage::analyzers::roofline
