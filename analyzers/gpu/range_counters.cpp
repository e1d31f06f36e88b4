// Counters of CUPTI range-profiler traces (docs/gpu-definitions.md, "CUPTI range profiler"):
// Kineto writes one cuda_profiler_range event per range (a user range or, per kernel, the
// kernel's name) with the metric values as arguments. Its times are not measured: the ranges are
// replayed and Kineto spreads them evenly over the profiling span. What is measured is work:
//  * FLOPs per precision from the SASS thread-instruction counters, as Nsight Compute counts
//    them: add + mul + 2 x fma (smsp__sass_thread_inst_executed_op_{h,f,d}{add,mul,fma}_pred_on);
//  * Tensor Core instructions (sm__inst_executed_pipe_tensor.sum): a count of warp instructions,
//    whose FLOPs depend on the instruction shape, so they are reported, never turned into FLOPs;
//  * DRAM bytes (dram__bytes_read.sum + dram__bytes_write.sum) when they were requested.
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/gpu/tables.h"
#include "store/bind.h"
#include "store/block_scan.h"
#include "store/records.h"

namespace perfsage::analyzers::gpu {
namespace {

// The number after "key": in a compact args object, or nullopt.
std::optional<double> metric(std::string_view args, std::string_view key) {
  std::string quoted = std::string("\"").append(key).append("\":");  // GCC 12 -Wrestrict
  auto k = args.find(quoted);
  if (k == std::string_view::npos) return std::nullopt;
  size_t i = k + quoted.size();
  while (i < args.size() && (args[i] == ' ' || args[i] == '"')) ++i;
  size_t j = i;
  while (j < args.size() &&
         (std::string_view("0123456789.eE+-").find(args[j]) != std::string_view::npos))
    ++j;
  if (j == i) return std::nullopt;
  try {
    return std::stod(std::string(args.substr(i, j - i)));
  } catch (...) {
    return std::nullopt;
  }
}

// FLOPs of one precision: add + mul + 2 fma; nullopt when none of the three was recorded.
std::optional<double> flops(std::string_view args, char p) {
  std::string base = "smsp__sass_thread_inst_executed_op_";
  auto add = metric(args, base + p + "add_pred_on.sum");
  auto mul = metric(args, base + p + "mul_pred_on.sum");
  auto fma = metric(args, base + p + "fma_pred_on.sum");
  if (!add && !mul && !fma) return std::nullopt;
  return add.value_or(0) + mul.value_or(0) + 2 * fma.value_or(0);
}

}  // namespace

void compute_range_counters(store::Database& db, int64_t run) {
  db.prepare("DELETE FROM gpu_range_counters WHERE run_id=?1").bind(1, run).run();
  const auto& schema = store::device_event_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_name = col("name"), c_dur = col("dur_ns"), c_args = col("args");
  struct Total {
    int64_t ranges = 0, dur_ns = 0;
    std::optional<double> fp16, fp32, fp64, tensor, read, write;
  };
  auto add = [](std::optional<double>& into, std::optional<double> v) {
    if (v) into = into.value_or(0) + *v;
  };
  std::map<std::pair<int64_t, std::string>, Total> totals;
  store::BlockScan scan(db, schema, run, std::string("range"), {"rank", "name", "dur_ns", "args"});
  while (scan.next()) {
    auto& b = scan.block();
    for (size_t r = 0; r < b.rows(); ++r) {
      std::string_view args = b.is_null(c_args, r) ? std::string_view() : b.text_at(c_args, r);
      Total& t = totals[{b.int_at(c_rank, r), std::string(b.text_at(c_name, r))}];
      ++t.ranges;
      t.dur_ns += b.int_at(c_dur, r);
      add(t.fp16, flops(args, 'h'));
      add(t.fp32, flops(args, 'f'));
      add(t.fp64, flops(args, 'd'));
      add(t.tensor, metric(args, "sm__inst_executed_pipe_tensor.sum"));
      add(t.read, metric(args, "dram__bytes_read.sum"));
      add(t.write, metric(args, "dram__bytes_write.sum"));
    }
  }
  store::RowInserter insert(db, tables::range_counters());
  for (const auto& [key, t] : totals) {
    std::optional<double> bytes;
    if (t.read || t.write) bytes = t.read.value_or(0) + t.write.value_or(0);
    insert.insert(run, key.first, key.second, t.ranges, t.dur_ns, t.fp16, t.fp32, t.fp64, t.tensor,
                  bytes);
  }
}

}  // namespace perfsage::analyzers::gpu
