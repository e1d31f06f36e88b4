#include "analyzers/roofline/roofline.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "analyzers/core/name_totals.h"
#include "analyzers/core/op_groups.h"
#include "analyzers/core/timed_part.h"
#include "analyzers/roofline/activation.h"
#include "analyzers/roofline/flop_model.h"
#include "analyzers/roofline/shape_alignment.h"
#include "analyzers/roofline/tables.h"

namespace perfsage::analyzers::roofline {
namespace {

struct Row {
  std::string scope, name, type, core_type, kernel, precision;
  int64_t count = 0;
  double total_us = 0, share = 0;
  std::optional<double> flops, bytes;
  std::string flops_source = "none", bytes_source = "none";
  double peak_flops = 0, peak_bw = 0;
  std::string dominant_pipe;
  double pipe_ratio = -1;
  std::string reason;  // why insufficient_data
};

bool tensor_core_kernel(const std::string& k) {
  for (const char* s : {"tf32", "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "xmma",
                        "c1688", "wgmma", "sm90", "cutlass", "tensorop"})
    if (k.find(s) != std::string::npos) return true;
  return false;
}

// The roof for an op: cube vs vector on Ascend; tensor cores vs CUDA cores on GPUs.
double pick_peak(const HardwareSpec& hw, const std::string& cls, std::string& precision,
                 bool vector_only, const std::string& kernel) {
  if (hw.family == "ascend") {
    if (vector_only) {
      precision = "vector_fp16";
      return hw.peak_for("vector_fp16");
    }
    if (precision == "int8") return hw.peak_for("int8");
    if (precision == "bf16") return hw.peak_for("bf16");
    precision = "fp16";  // the cube computes FP32 inputs through FP16/HF32 paths; FP16 is the roof
    return hw.peak_for("fp16");
  }
  bool tc_class = cls == "matmul" || cls == "conv" || cls == "attention";
  if (tc_class && (precision == "fp16" || precision == "bf16" || precision == "int8"))
    return hw.peak_for(precision);
  if (tc_class && precision == "fp32" && tensor_core_kernel(kernel)) {
    precision = "tf32";
    return hw.peak_for("tf32");
  }
  precision = "fp32";
  return hw.peak_for("fp32");
}

void finish(Row& r, const HardwareSpec& hw) {
  r.peak_bw = hw.bandwidth;
  if (r.reason.empty() && (!r.flops || *r.flops <= 0)) r.reason = "no FLOP count";
  if (r.reason.empty() && (!r.bytes || *r.bytes <= 0)) r.reason = "no byte count";
  if (r.reason.empty() && r.peak_flops <= 0)
    r.reason = "peak " + r.precision + " rate of " + (hw.part.empty() ? "the device" : hw.part) +
               " unknown";
  if (r.reason.empty() && r.peak_bw <= 0)
    r.reason = "memory bandwidth of " + (hw.part.empty() ? "the device" : hw.part) + " unknown";
  if (r.reason.empty() && r.total_us <= 0) r.reason = "zero duration";
}

void write_row(store::RowInserter& st, int64_t run_id, const Row& r) {
  Verdict v;
  std::string bound = "insufficient_data", cause;
  std::string reason = r.reason;
  if (r.reason.empty()) {
    v = classify({*r.flops, *r.bytes, r.total_us * 1e-6, r.peak_flops, r.peak_bw});
    bound = v.bound;
    if (v.utilisation > kAboveRoof) {
      bound = "invalid";
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "above its roof: %.0f %% of the attainable rate, so its %s FLOP count, byte "
                    "count or the %s peak is wrong",
                    v.utilisation * 100, r.flops_source.c_str(), r.precision.c_str());
      reason = buf;
    }
    if (bound == "latency") {
      if (r.pipe_ratio < 0)
        cause = r.scope == "gpu_op" && r.total_us / std::max<int64_t>(r.count, 1) < 10 ? "launch"
                                                                                       : "unknown";
      else if (r.pipe_ratio < kPipeBound)
        cause = "pipeline";
      else
        cause = r.dominant_pipe.rfind("mte", 0) == 0 ? "memory" : "compute";
    } else if (bound != "invalid") {
      cause = bound;
    }
  }
  auto opt = [](double x) { return x > 0 ? std::optional<double>(x) : std::nullopt; };
  bool ok = r.reason.empty();
  auto if_ok = [&](std::optional<double> x) { return ok ? x : std::nullopt; };
  st.insert(run_id, r.scope, r.name, r.type, r.core_type, r.count, r.total_us, r.share, r.flops,
            r.bytes, r.flops_source, r.bytes_source, r.precision, opt(r.peak_flops), opt(r.peak_bw),
            if_ok(opt(v.ridge)), if_ok(opt(v.intensity)), if_ok(opt(v.attainable)),
            if_ok(opt(v.achieved)), if_ok(v.utilisation),
            if_ok(ok ? *r.flops / v.attainable * 1e6 : 0.0), bound, cause, r.dominant_pipe,
            r.pipe_ratio >= 0 ? std::optional<double>(r.pipe_ratio) : std::nullopt, r.kernel,
            reason);
}

// Ascend ops on AI Core / AI Vector cores, aggregated per op name over the ranks (op_groups.h),
// with the shapes and data types of the lowest rank's latest task of each op.
std::vector<Row> ascend_rows(std::vector<OpGroup> all, const HardwareSpec& hw,
                             std::vector<Misalignment>& misaligned) {
  std::vector<Row> rows;
  if (all.empty()) return rows;
  bool flop_counters = false, byte_counters = false;
  int64_t device_ns = 0;
  std::vector<OpGroup> groups;
  for (auto& g : all) {
    flop_counters = flop_counters || g.cube_fops.n + g.vector_fops.n > 0;
    byte_counters = byte_counters || g.read_bytes.n + g.write_bytes.n > 0;
    device_ns += g.sum_ns;
    static const std::string_view kCores[] = {
        "AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV", "N/A", ""};
    if (std::find(std::begin(kCores), std::end(kCores), g.core_type) != std::end(kCores) &&
        groups.size() < 100000)
      groups.push_back(std::move(g));
  }
  double device_us = static_cast<double>(device_ns) / 1000.0;
  static const char* kPipeNames[] = {"mac", "vec", "scalar", "mte1", "mte2", "mte3", "fixpipe"};
  for (const OpGroup& g : groups) {
    for (auto& m : check_alignment(g)) misaligned.push_back(std::move(m));
    Row r;
    r.scope = "op";
    r.name = g.name;
    r.type = g.type;
    r.core_type = g.core_type;
    r.count = g.count;
    r.total_us = static_cast<double>(g.sum_ns) / 1000.0;
    r.share = device_us > 0 ? r.total_us / device_us : 0;
    double cube = g.cube_fops.sum, vec = g.vector_fops.sum;
    for (int i = 0; i < kPipes; ++i) {
      auto mean = g.ratio[i].mean();
      if (mean && *mean > r.pipe_ratio) {
        r.pipe_ratio = *mean;
        r.dominant_pipe = kPipeNames[i];
      }
    }
    auto in_dt = parse_dtypes(g.input_dtypes.value_or(""));
    r.precision = in_dt.empty() ? "unknown" : precision_of(in_dt.front());
    std::string cls = op_class(r.type);
    if (flop_counters) {
      if (g.cube_fops.n > 0 || g.vector_fops.n > 0) {
        r.flops = cube + vec;
        r.flops_source = "counter";
      }
      if (byte_counters && g.read_bytes.n + g.write_bytes.n > 0) {
        r.bytes = g.read_bytes.sum + g.write_bytes.sum;
        r.bytes_source = "counter";
      } else if (!byte_counters) {
        // Measured FLOPs over modelled bytes would mix sources; ask for the counters instead.
        r.reason = "FLOP counters without byte counters (collect the Memory metric group)";
      }
    } else {
      Estimate e = estimate(
          r.type,
          logical_shapes(parse_shapes(g.input_shapes.value_or("")), g.input_formats.value_or("")),
          in_dt,
          logical_shapes(parse_shapes(g.output_shapes.value_or("")), g.output_formats.value_or("")),
          parse_dtypes(g.output_dtypes.value_or("")));
      if (e.ok) {
        r.flops = e.flops * static_cast<double>(r.count);
        r.bytes = e.bytes * static_cast<double>(r.count);
        r.flops_source = r.bytes_source = "model";
      } else {
        r.reason = e.why;
      }
      vec = (cls == "matmul" || cls == "conv" || cls == "attention") ? 0 : 1;
      cube = 1 - vec;
    }
    r.peak_flops = pick_peak(hw, cls, r.precision, vec > cube, "");
    finish(r, hw);
    rows.push_back(std::move(r));
  }
  return rows;
}

void write_ascend_groups(store::Database& db, int64_t run_id, const std::vector<OpGroup>& ranks) {
  db.prepare("DELETE FROM ascend_op_groups WHERE run_id = ?1").bind(1, run_id).run();
  store::RowInserter insert(db, tables::ascend_op_groups());
  for (const OpGroup& g : ranks) {
    const auto& r = g.ratio;
    insert.insert(run_id, g.rank, g.name, g.type, g.core_type, g.count, g.sum_ns, g.cube_fops.sum,
                  g.cube_fops.n, g.vector_fops.sum, g.vector_fops.n, g.read_bytes.sum,
                  g.read_bytes.n, g.write_bytes.sum, g.write_bytes.n, r[kMac].sum, r[kMac].n,
                  r[kVec].sum, r[kVec].n, r[kScalar].sum, r[kScalar].n, r[kMte1].sum, r[kMte1].n,
                  r[kMte2].sum, r[kMte2].n, r[kMte3].sum, r[kMte3].n, r[kFixpipe].sum,
                  r[kFixpipe].n, g.input_shapes, g.input_dtypes, g.input_formats, g.output_shapes,
                  g.output_dtypes, g.output_formats);
  }
}

// The ranks' groups as write_ascend_groups kept them, by rank.
std::vector<OpGroup> ascend_groups_of_ranks(store::Database& db, int64_t run_id) {
  std::string cols;
  for (const auto& c : tables::ascend_op_groups().columns)
    cols += (cols.empty() ? "\"" : ", \"") + c.name + "\"";
  auto st = db.prepare("SELECT " + cols +
                       " FROM ascend_op_groups WHERE run_id = ?1 ORDER BY rank, rowid");
  st.bind(1, run_id);
  std::vector<OpGroup> out;
  while (st.step()) {
    OpGroup g;
    int c = 0;
    g.rank = st.int64(c++);
    g.name = st.text(c++);
    g.type = st.text(c++);
    g.core_type = st.text(c++);
    g.count = st.int64(c++);
    g.sum_ns = st.int64(c++);
    auto sum = [&](NullableSum& s) {
      s.sum = st.real(c++);
      s.n = st.int64(c++);
    };
    for (NullableSum* s : {&g.cube_fops, &g.vector_fops, &g.read_bytes, &g.write_bytes}) sum(*s);
    for (int p = 0; p < kPipes; ++p) sum(g.ratio[p]);
    for (auto* t : {&g.input_shapes, &g.input_dtypes, &g.input_formats, &g.output_shapes,
                    &g.output_dtypes, &g.output_formats}) {
      if (!st.is_null(c)) *t = st.text(c);
      ++c;
    }
    out.push_back(std::move(g));
  }
  return out;
}

// GPU ops per (op name, input dims, input types), over the op instances (rank, External id)
// that launched kernels: instances, their kernels' summed time, the longest kernel of each
// instance (the greatest such name per group is reported).
struct GpuOpGroup {
  std::string name, dims, types;
  int64_t instances = 0, dur_ns = 0;
  std::string kernel;
};

// What the GPU roofline needs from the launch pass: the op groups, the kernels no op claims
// (totals per kernel name), and the run's kernel time.
struct GpuKernels {
  std::vector<GpuOpGroup> groups;
  std::vector<NameTotal> unlinked;
  double kernel_us = 0;
};

// Op groups per rank, (rank, name, dims, types) -> group.
using RankGroups = std::map<std::tuple<int64_t, std::string, std::string, std::string>, GpuOpGroup>;

// Each rank's op groups from the launch pass: a GROUP BY over the kernels, another over the CPU
// ops and a third over the joined instances each sorted every row in SQLite (a second per GB of
// trace).
RankGroups rank_groups(const LaunchPass& pass) {
  RankGroups out;
  auto text = [&](uint32_t id) {
    return id == LaunchPass::kNone ? std::string() : pass.op_texts.text(id);
  };
  for (const auto& in : pass.instances) {
    if (!in.has_op) continue;
    GpuOpGroup& g = out[{in.key.rank, text(in.name), text(in.dims), text(in.types)}];
    ++g.instances;
    g.dur_ns += in.dur_ns;
    const std::string& kernel = pass.kernel_names.text(in.kernel);
    if (kernel > g.kernel) g.kernel = kernel;
  }
  return out;
}

// The ranks' groups summed (counts and times) and maxed (the kernel name): the same whichever
// process grouped each rank, so a cluster run's points equal the one-machine analysis's.
std::vector<GpuOpGroup> merged_groups(const RankGroups& ranks) {
  std::map<std::tuple<std::string, std::string, std::string>, GpuOpGroup> groups;
  for (const auto& [key, r] : ranks) {
    GpuOpGroup& g = groups[{std::get<1>(key), std::get<2>(key), std::get<3>(key)}];
    g.instances += r.instances;
    g.dur_ns += r.dur_ns;
    if (r.kernel > g.kernel) g.kernel = r.kernel;
  }
  std::vector<GpuOpGroup> out;
  for (auto& [key, g] : groups) {
    std::tie(g.name, g.dims, g.types) = key;
    out.push_back(std::move(g));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const GpuOpGroup& a, const GpuOpGroup& b) { return a.dur_ns > b.dur_ns; });
  if (out.size() > 100000) out.resize(100000);
  return out;
}

void write_rank_groups(store::Database& db, int64_t run_id, const RankGroups& ranks) {
  db.prepare("DELETE FROM gpu_op_groups WHERE run_id = ?1").bind(1, run_id).run();
  store::RowInserter insert(db, tables::gpu_op_groups());
  for (const auto& [key, g] : ranks) {
    const auto& [rank, name, dims, types] = key;
    insert.insert(run_id, rank, name, dims, types, g.instances, g.dur_ns, g.kernel);
  }
}

void finish_unlinked(std::vector<NameTotal>& unlinked) {
  sort_by_total(unlinked);
  if (unlinked.size() > 100000) unlinked.resize(100000);
}

GpuKernels gpu_kernels(const LaunchPass& pass, const RankGroups& ranks) {
  GpuKernels out;
  out.kernel_us = static_cast<double>(pass.kernel_ns) / 1e3;
  out.groups = merged_groups(ranks);
  std::vector<NameTotal> unlinked(pass.kernel_names.size());
  for (const LaunchPass::Kernel& k : pass.kernels) {
    if (k.instance != nullptr && k.instance->has_op) continue;
    NameTotal& t = unlinked[k.name];
    ++t.count;
    t.dur_ns += k.dur_ns;
  }
  for (size_t i = 0; i < unlinked.size(); ++i) {
    if (unlinked[i].count > 0) {
      unlinked[i].name = pass.kernel_names.text(static_cast<uint32_t>(i));
      out.unlinked.push_back(std::move(unlinked[i]));
    }
  }
  finish_unlinked(out.unlinked);
  return out;
}

// The same from the ranks' tables: gpu_op_groups, the kernels no op claims (kernel_groups
// without an op) and every kernel's time (kernel_totals).
GpuKernels gpu_kernels_of_ranks(store::Database& db, int64_t run_id) {
  GpuKernels out;
  RankGroups ranks;
  {
    auto st = db.prepare(
        "SELECT rank, name, dims, types, instances, dur_ns, kernel FROM gpu_op_groups "
        "WHERE run_id = ?1");
    st.bind(1, run_id);
    while (st.step()) {
      GpuOpGroup& g = ranks[{st.int64(0), st.text(1), st.text(2), st.text(3)}];
      g.instances = st.int64(4);
      g.dur_ns = st.int64(5);
      g.kernel = st.text(6);
    }
  }
  out.groups = merged_groups(ranks);
  {
    auto st = db.prepare(
        "SELECT name, sum(kernels), sum(dur_ns) FROM kernel_groups WHERE run_id = ?1 AND op IS "
        "NULL GROUP BY name");
    st.bind(1, run_id);
    while (st.step()) out.unlinked.push_back({st.text(0), st.int64(1), st.int64(2)});
  }
  finish_unlinked(out.unlinked);
  auto st = db.prepare("SELECT coalesce(sum(dur_ns), 0) FROM kernel_totals WHERE run_id = ?1");
  st.bind(1, run_id);
  st.step();
  out.kernel_us = static_cast<double>(st.int64(0)) / 1e3;
  return out;
}

std::vector<Row> gpu_rows(const GpuKernels& gpu, const HardwareSpec& hw) {
  std::vector<Row> rows;
  const double kernel_us = gpu.kernel_us;
  for (const auto& g : gpu.groups) {
    Row r;
    r.scope = "gpu_op";
    r.name = g.name;
    r.type = r.name;
    r.core_type = "GPU";
    r.count = g.instances;
    r.total_us = static_cast<double>(g.dur_ns) / 1e3;
    r.kernel = g.kernel;
    r.share = kernel_us > 0 ? r.total_us / kernel_us : 0;
    auto dims = parse_shapes(g.dims);
    auto types = parse_dtypes(g.types);
    std::string first;
    for (const auto& t : types)
      if (dtype_bytes(t) > 0) {
        first = t;
        break;
      }
    r.precision = precision_of(first);
    std::string cls = op_class(r.type);
    if (g.dims.empty()) {
      r.reason = "no input shapes recorded (profile with record_shapes=True)";
    } else {
      Estimate e = estimate(r.type, dims, types, {}, {});
      if (e.ok) {
        r.flops = e.flops * static_cast<double>(r.count);
        r.bytes = e.bytes * static_cast<double>(r.count);
        r.flops_source = r.bytes_source = "model";
      } else {
        r.reason = e.why;
      }
    }
    r.peak_flops = pick_peak(hw, cls, r.precision, false, r.kernel);
    finish(r, hw);
    rows.push_back(std::move(r));
  }
  // Kernels no CPU op claims (older traces carry the correlation id as External id):
  // one insufficient_data point per kernel name, so the run says why it has no roofline
  // instead of saying nothing.
  for (const auto& k : gpu.unlinked) {
    Row r;
    r.scope = "kernel";
    r.name = r.kernel = k.name;
    r.type = "kernel";
    r.core_type = "GPU";
    r.count = k.count;
    r.total_us = static_cast<double>(k.dur_ns) / 1e3;
    r.share = kernel_us > 0 ? r.total_us / kernel_us : 0;
    r.reason =
        "device kernel not linked to a framework op with input shapes (PyTorch profiler: "
        "record_shapes=True)";
    finish(r, hw);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace

Verdict classify(const Point& p) {
  Verdict v;
  v.intensity = p.flops / p.bytes;
  v.ridge = p.peak_flops / p.peak_bw;
  v.attainable = std::min(p.peak_flops, p.peak_bw * v.intensity);
  v.achieved = p.flops / p.seconds;
  v.utilisation = v.achieved / v.attainable;
  if (v.utilisation >= kBoundUtilisation)
    v.bound = v.intensity >= v.ridge ? "compute" : "memory";
  else
    v.bound = "latency";
  return v;
}

int compute_roofline(store::Database& db, int64_t run_id, const HardwareSpec& hw) {
  return compute_roofline(db, run_id, hw, read_launch_pass(db, run_id),
                          op_groups(nullptr, db, run_id)->groups);
}

int compute_roofline(store::Database& db, int64_t run_id, const HardwareSpec& hw,
                     const LaunchPass& pass, const std::vector<OpGroup>& ascend) {
  db.prepare("DELETE FROM roofline_ops WHERE run_id = ?1").bind(1, run_id).run();
  std::vector<Misalignment> misaligned;
  write_ascend_groups(db, run_id, ascend);
  auto rows = ascend_rows(merge_ranks(ascend), hw, misaligned);
  write_alignment(db, run_id, misaligned);
  const RankGroups ranks = rank_groups(pass);
  write_rank_groups(db, run_id, ranks);
  auto gpu = gpu_rows(gpu_kernels(pass, ranks), hw);
  rows.insert(rows.end(), std::make_move_iterator(gpu.begin()), std::make_move_iterator(gpu.end()));
  store::RowInserter st(db, tables::roofline_ops());
  for (const auto& r : rows) write_row(st, run_id, r);
  return static_cast<int>(rows.size());
}

int compute_ascend_roofline_of_ranks(store::Database& db, int64_t run_id, const HardwareSpec& hw) {
  db.prepare("DELETE FROM roofline_ops WHERE run_id = ?1 AND scope = 'op'").bind(1, run_id).run();
  std::vector<Misalignment> misaligned;
  auto rows = ascend_rows(merge_ranks(ascend_groups_of_ranks(db, run_id)), hw, misaligned);
  write_alignment(db, run_id, misaligned);
  store::RowInserter st(db, tables::roofline_ops());
  for (const auto& r : rows) write_row(st, run_id, r);
  return static_cast<int>(rows.size());
}

int compute_gpu_roofline_of_ranks(store::Database& db, int64_t run_id, const HardwareSpec& hw) {
  db.prepare("DELETE FROM roofline_ops WHERE run_id = ?1 AND scope IN ('gpu_op', 'kernel')")
      .bind(1, run_id)
      .run();
  auto rows = gpu_rows(gpu_kernels_of_ranks(db, run_id), hw);
  store::RowInserter st(db, tables::roofline_ops());
  for (const auto& r : rows) write_row(st, run_id, r);
  return static_cast<int>(rows.size());
}

void analyze_roofline(store::Database& db, int64_t run_id, const HardwareDb& hardware,
                      SharedPasses* passes) {
  auto timed = [](const char* part, auto&& f) { timed_part("roofline", part, f); };
  HardwareSpec hw;
  timed("hardware_spec", [&] { hw = compute_hardware_spec(db, run_id, hardware); });
  std::shared_ptr<const LaunchPass> pass;
  timed("launch pass", [&] { pass = launch_pass(passes, db, run_id); });
  std::shared_ptr<const OpGroups> ascend;
  timed("op groups", [&] { ascend = op_groups(passes, db, run_id); });
  timed("roofline_ops", [&] { compute_roofline(db, run_id, hw, *pass, ascend->groups); });
  ascend.reset();
  std::shared_ptr<const OpTaskPass> tasks;
  timed("op task pass", [&] { tasks = op_task_pass(passes, db, run_id); });
  timed("activation_patterns",
        [&] { compute_activation_patterns(db, run_id, *pass, std::move(tasks)); });
}

}  // namespace perfsage::analyzers::roofline
