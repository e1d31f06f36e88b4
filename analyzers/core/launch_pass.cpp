#include "analyzers/core/launch_pass.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "analyzers/core/op_key_table.h"
#include "analyzers/core/stream_sort.h"
#include "analyzers/core/timed_part.h"
#include "store/block_scan.h"

namespace perfsage::analyzers {
namespace {

// A kernel as read, before its launching op is known.
struct ReadKernel {
  int64_t rank, external_id, correlation;
  bool has_external_id, has_correlation;
};

// Every kernel, in scan order; `wanted`: the correlations of kernels whose External id is their
// correlation id (their op is found through the launch call), keyed by correlation alone (rank
// 0), as the calls of every rank are matched against them.
void read_kernels(store::Database& db, int64_t run_id, LaunchPass& out,
                  std::vector<ReadKernel>& read, OpKeyTable<char>& wanted) {
  const auto& schema = store::device_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_ext = col("external_id"), c_name = col("name"),
            c_dur = col("dur_ns"), c_occ = col("occupancy"), c_bps = col("blocks_per_sm"),
            c_corr = col("correlation"), c_regs = col("registers");
  store::BlockScan scan(db, schema, run_id, std::string("kernel"),
                        {"rank", "external_id", "name", "dur_ns", "occupancy", "blocks_per_sm",
                         "correlation", "registers"});
  store::BlockTextIds names(out.kernel_names, c_name);
  const size_t rows = store::block_rows(db, schema, run_id, std::string("kernel"));
  out.kernels.reserve(rows);
  read.reserve(rows);
  while (scan.next()) {
    auto& b = scan.block();
    names.start_block(b);
    for (size_t r = 0; r < b.rows(); ++r) {
      LaunchPass::Kernel k{
          nullptr, b.int_at(c_rank, r), b.int_at(c_dur, r), 0, 0, 0, names.at(b, r), false, false,
          false};
      if ((k.has_occupancy = !b.is_null(c_occ, r))) k.occupancy = b.real_at(c_occ, r);
      if ((k.has_blocks_per_sm = !b.is_null(c_bps, r))) k.blocks_per_sm = b.real_at(c_bps, r);
      if ((k.has_registers = !b.is_null(c_regs, r))) k.registers = b.int_at(c_regs, r);
      out.kernel_ns += k.dur_ns;
      out.kernels.push_back(k);
      ReadKernel rk{b.int_at(c_rank, r), 0, 0, !b.is_null(c_ext, r), !b.is_null(c_corr, r)};
      if (rk.has_external_id) rk.external_id = b.int_at(c_ext, r);
      if (rk.has_correlation) rk.correlation = b.int_at(c_corr, r);
      if (rk.has_external_id && rk.has_correlation && rk.external_id == rk.correlation)
        wanted[{0, rk.correlation}] = 1;
      read.push_back(rk);
    }
  }
}

// A CPU op as read, in scan order.
struct ReadOp {
  int64_t rank, pid, tid, start, end, external_id;
  uint32_t name, dims, types;
  bool has_pid, has_tid, has_external_id;
};

void read_cpu_ops(store::Database& db, int64_t run_id, LaunchPass& out, std::vector<ReadOp>& read) {
  const auto& schema = store::host_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_pid = col("pid"), c_tid = col("tid"), c_start = col("start_ns"),
            c_dur = col("dur_ns"), c_ext = col("external_id"), c_name = col("name"),
            c_dims = col("input_dims"), c_types = col("input_types");
  store::BlockScan scan(db, schema, run_id, std::string("cpu_op"),
                        {"rank", "pid", "tid", "start_ns", "dur_ns", "external_id", "name",
                         "input_dims", "input_types"});
  store::BlockTextIds names(out.op_texts, c_name), dims(out.op_texts, c_dims),
      types(out.op_texts, c_types);
  read.reserve(store::block_rows(db, schema, run_id, std::string("cpu_op")));
  while (scan.next()) {
    auto& b = scan.block();
    names.start_block(b);
    dims.start_block(b);
    types.start_block(b);
    for (size_t r = 0; r < b.rows(); ++r) {
      int64_t start = b.int_at(c_start, r);
      ReadOp op{b.int_at(c_rank, r),
                0,
                0,
                start,
                start + b.int_at(c_dur, r),
                0,
                names.at(b, r),
                b.is_null(c_dims, r) ? LaunchPass::kNone : dims.at(b, r),
                b.is_null(c_types, r) ? LaunchPass::kNone : types.at(b, r),
                !b.is_null(c_pid, r),
                !b.is_null(c_tid, r),
                !b.is_null(c_ext, r)};
      if (op.has_pid) op.pid = b.int_at(c_pid, r);
      if (op.has_tid) op.tid = b.int_at(c_tid, r);
      if (op.has_external_id) op.external_id = b.int_at(c_ext, r);
      read.push_back(op);
    }
  }
}

// The launch calls of `wanted` correlations nested in the ops with an External id.
std::vector<LaunchLink> link_launches(store::Database& db, int64_t run_id,
                                      const std::vector<ReadOp>& ops,
                                      const OpKeyTable<char>& wanted) {
  std::vector<HostSpan> op_spans, calls;
  op_spans.reserve(ops.size());
  for (const ReadOp& op : ops)
    if (op.has_external_id)
      op_spans.push_back({op.rank, op.has_pid ? op.pid : -1, op.has_tid ? op.tid : -1, op.start,
                          op.end, op.external_id});
  calls.reserve(wanted.size());
  const auto& schema = store::host_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_pid = col("pid"), c_tid = col("tid"), c_start = col("start_ns"),
            c_dur = col("dur_ns"), c_corr = col("correlation");
  store::BlockScan scan(db, schema, run_id, std::string("runtime"),
                        {"rank", "pid", "tid", "start_ns", "dur_ns", "correlation"});
  while (scan.next()) {
    auto& b = scan.block();
    for (size_t r = 0; r < b.rows(); ++r) {
      if (b.is_null(c_corr, r) || !wanted.contains({0, b.int_at(c_corr, r)})) continue;
      int64_t start = b.int_at(c_start, r);
      calls.push_back({b.int_at(c_rank, r), b.is_null(c_pid, r) ? -1 : b.int_at(c_pid, r),
                       b.is_null(c_tid, r) ? -1 : b.int_at(c_tid, r), start,
                       start + b.int_at(c_dur, r), b.int_at(c_corr, r)});
    }
  }
  return nest_launch_calls(std::move(op_spans), std::move(calls));
}

// The least text of two ids (kNone: none), as SQL's min() over the texts.
uint32_t least(const store::TextIds& texts, uint32_t have, uint32_t id) {
  if (id == LaunchPass::kNone) return have;
  if (have == LaunchPass::kNone || texts.text(id) < texts.text(have)) return id;
  return have;
}

// Each kernel's op instance; the launching ops' texts; every op's time in its sequence, sorted.
void join_and_sort(LaunchPass& out, std::vector<ReadKernel>& kernels, std::vector<ReadOp>& ops) {
  // Each kernel's op instance: its External id, or the op its launch call nests in (a later
  // link of the same call wins, as the table's rows read in order did).
  OpKeyTable<int64_t> by_correlation(out.links.size());  // (rank, correlation) -> op
  for (const LaunchLink& l : out.links) by_correlation[{l.rank, l.correlation}] = l.op_external_id;
  // The instances never outgrow this, so the kernels' pointers into it stay valid.
  out.instances.reserve(static_cast<size_t>(std::count_if(
      kernels.begin(), kernels.end(), [](const ReadKernel& k) { return k.has_external_id; })));
  OpKeyTable<uint32_t> instance_of(out.instances.capacity());  // index + 1; 0: none yet
  for (size_t i = 0; i < kernels.size(); ++i) {
    const ReadKernel& rk = kernels[i];
    if (!rk.has_external_id) continue;
    int64_t op = rk.external_id;
    if (!by_correlation.empty() && rk.has_correlation && rk.correlation == rk.external_id) {
      if (const int64_t* linked = by_correlation.find({rk.rank, rk.external_id})) op = *linked;
    }
    LaunchPass::Kernel& k = out.kernels[i];
    uint32_t& at = instance_of[{rk.rank, op}];
    if (at == 0) {
      out.instances.push_back({});
      out.instances.back().key = {rk.rank, op};
      at = static_cast<uint32_t>(out.instances.size());
    }
    LaunchPass::Instance& in = out.instances[at - 1];
    k.instance = &in;
    in.dur_ns += k.dur_ns;
    if (k.dur_ns > in.longest) {
      in.longest = k.dur_ns;
      in.kernel = k.name;
    }
  }
  kernels = {};

  // The launching ops' texts; every op's time in its sequence.
  std::vector<LaunchPass::CpuOp> read_order;
  read_order.reserve(ops.size());
  for (const ReadOp& op : ops) {
    int64_t ns = op.end - op.start;
    if (op.has_external_id) {
      const uint32_t* at = instance_of.find({op.rank, op.external_id});
      if (at != nullptr) {
        LaunchPass::Instance& in = out.instances[*at - 1];
        ns = in.dur_ns;
        in.name = in.has_op ? least(out.op_texts, in.name, op.name) : op.name;
        in.has_op = true;
        in.dims = least(out.op_texts, in.dims, op.dims);
        in.types = least(out.op_texts, in.types, op.types);
      }
    }
    read_order.push_back(
        {op.rank, op.has_tid ? op.tid : 0, op.start, op.end, op.name, op.dims, ns});
  }
  ops = {};
  // Stably by (rank, tid, start), as SQL's ORDER BY would give them but without copying every
  // row with its name into SQLite's sorter: few threads, each mostly in start order already.
  sort_by_stream(
      read_order,
      [](const LaunchPass::CpuOp& op) {
        return std::pair{op.rank, op.tid};
      },
      [](const LaunchPass::CpuOp& a, const LaunchPass::CpuOp& b) { return a.start < b.start; });
  out.cpu_ops = std::move(read_order);
}

}  // namespace

LaunchPass read_launch_pass(store::Database& db, int64_t run_id) {
  auto timed = [](const char* part, auto&& f) { timed_part("launch pass", part, f); };
  LaunchPass out;
  std::vector<ReadKernel> kernels;
  OpKeyTable<char> wanted;
  timed("kernels", [&] { read_kernels(db, run_id, out, kernels, wanted); });
  std::vector<ReadOp> ops;
  timed("cpu ops", [&] { read_cpu_ops(db, run_id, out, ops); });
  if (!wanted.empty())
    timed("launch links", [&] { out.links = link_launches(db, run_id, ops, wanted); });
  timed("instances and sequences", [&] { join_and_sort(out, kernels, ops); });
  return out;
}

}  // namespace perfsage::analyzers
