#include "analyzers/roofline/tables.h"

namespace perfsage::analyzers::roofline::tables {

using store::integer;
using store::real;
using store::text;

const store::DerivedTable& hardware_specs() {
  static const store::DerivedTable t{
      "hardware_specs",
      "The run's device resolved against the hardware database, one row per run "
      "(analyzers/roofline/hardware_spec.cpp). NULL peaks are not known.",
      {text("part", "part name").or_null(),
       text("match", "how the part was found: alias, pattern, generic, vendor, block_dim or none"),
       text("candidates", "parts that would match, when ambiguous").or_null(),
       text("family", "part family").or_null(),
       real("cube_cores", "count", "AI cores (Ascend)").or_null(),
       real("vector_cores", "count", "vector cores (Ascend)").or_null(),
       real("sm_count", "count", "streaming multiprocessors or compute units").or_null(),
       real("freq_mhz", "MHz", "clock").or_null(),
       real("memory_gib", "GiB", "device memory").or_null(),
       real("l2_mib", "MiB", "L2 cache").or_null(),
       integer("compute_major", "", "CUDA compute capability major").or_null(),
       real("peak_fp32", "flop/s", "fp32 peak").or_null(),
       real("peak_tf32", "flop/s", "tf32 matrix peak").or_null(),
       real("peak_fp16", "flop/s", "fp16 matrix peak").or_null(),
       real("peak_bf16", "flop/s", "bf16 matrix peak").or_null(),
       real("peak_int8", "op/s", "int8 matrix peak").or_null(),
       real("peak_vector", "flop/s", "fp16 vector peak (Ascend)").or_null(),
       real("bandwidth", "bytes/s", "device memory bandwidth").or_null(),
       text("cores_source", "where the core count came from").or_null(),
       text("freq_source", "where the clock came from").or_null(),
       text("peak_source", "where the peaks came from").or_null(),
       text("bw_source", "where the bandwidth came from").or_null(),
       text("note", "caveats").or_null(),
       text("vendor", "nvidia, amd or huawei").or_null(),
       text("arch", "architecture").or_null(),
       text("isa", "instruction set (gfx942, ...)").or_null(),
       text("matrix_fp16", "fp16 matrix units: yes, no or unknown").or_null(),
       text("matrix_bf16", "bf16 matrix units").or_null(),
       text("matrix_tf32", "tf32 matrix units").or_null(),
       text("matrix_fp8", "fp8 matrix units").or_null()},
      {}};
  return t;
}

const store::DerivedTable& roofline_ops() {
  static const store::DerivedTable t{
      "roofline_ops",
      "Roofline points per Ascend op name and per GPU-launching op, with the verdict and why "
      "a point could not be placed (analyzers/roofline/roofline.cpp).",
      {text("scope", "ascend_op or gpu_op"),
       text("name", "op name"),
       text("type", "op type").or_null(),
       text("core_type", "core type").or_null(),
       integer("count", "count", "executions").or_null(),
       real("total_us", "us", "device time").or_null(),
       real("share", "ratio", "total_us / all device time").or_null(),
       real("flops", "flop", "operations, summed").or_null(),
       real("bytes", "bytes", "memory traffic, summed").or_null(),
       text("flops_source", "counters or model").or_null(),
       text("bytes_source", "counters or model").or_null(),
       text("precision", "the precision whose peak applies").or_null(),
       real("peak_flops", "flop/s", "that peak").or_null(),
       real("peak_bw", "bytes/s", "memory bandwidth").or_null(),
       real("ridge", "flop/byte", "peak_flops / peak_bw").or_null(),
       real("intensity", "flop/byte", "flops / bytes").or_null(),
       real("attainable", "flop/s", "min(peak, intensity x bandwidth)").or_null(),
       real("achieved", "flop/s", "flops / device time").or_null(),
       real("utilisation", "ratio", "achieved / attainable").or_null(),
       real("roof_us", "us", "time at the roof").or_null(),
       text("bound", "compute, memory, latency, insufficient_data or invalid"),
       text("cause", "why a latency-bound op is slow: launch, pipeline, memory, compute").or_null(),
       text("dominant_pipe", "busiest pipe (Ascend counters)").or_null(),
       real("pipe_ratio", "ratio", "its busy share").or_null(),
       text("kernel", "longest kernel (GPU ops)").or_null(),
       text("reason", "why no point could be placed, or why it is invalid").or_null()},
      {"run_id"}};
  return t;
}

const store::DerivedTable& gpu_op_groups() {
  static const store::DerivedTable t{
      "gpu_op_groups",
      "GPU-launching CPU ops per rank and (op name, input dims, input types), over the op "
      "instances (rank, External id) that launched kernels (analyzers/roofline/roofline.cpp): "
      "what the GPU Roofline points are computed from, kept per rank so that a cluster run's "
      "points can be computed from its ranks' rows (docs/scale-out.md). Rows by rank, then name, "
      "dims and types.",
      {integer("rank", "", "rank of the trace"), text("name", "op name"),
       text("dims", "input dims as recorded; empty without"),
       text("types", "input types as recorded; empty without"),
       integer("instances", "count", "op instances that launched kernels"),
       integer("dur_ns", "ns", "their kernels' summed time"),
       text("kernel", "the greatest name among the instances' longest kernels")},
      {"run_id"}};
  return t;
}

const store::DerivedTable& ascend_op_groups() {
  static const store::DerivedTable t = [] {
    std::vector<store::Column> cols{integer("rank", "", "rank (device) of the profile"),
                                    text("name", "op name"),
                                    text("type", "op type"),
                                    text("core_type", "core type"),
                                    integer("count", "count", "tasks"),
                                    integer("dur_ns", "ns", "their summed duration")};
    // Counter sums with the number of tasks that had the counter, so that ranks merge exactly.
    for (auto [c, unit] : {std::pair{"cube_fops", "flop"},
                           {"vector_fops", "flop"},
                           {"read_bytes", "bytes"},
                           {"write_bytes", "bytes"}}) {
      cols.push_back(real(c, unit, "summed over the tasks that have it"));
      cols.push_back(integer(std::string(c) + "_n", "count", "tasks that have it"));
    }
    for (const char* p : {"mac", "vec", "scalar", "mte1", "mte2", "mte3", "fixpipe"}) {
      cols.push_back(real(std::string(p) + "_ratio_sum", "ratio", "pipe ratio summed"));
      cols.push_back(integer(std::string(p) + "_ratio_n", "count", "tasks that have it"));
    }
    for (const char* c : {"input_shapes", "input_dtypes", "input_formats", "output_shapes",
                          "output_dtypes", "output_formats"})
      cols.push_back(text(c, "of the rank's latest task of the group").or_null());
    return store::DerivedTable{
        "ascend_op_groups",
        "Ascend op tasks per rank and (op name, type, core type) (analyzers/roofline/"
        "roofline.cpp): what the Ascend Roofline points and shape_alignment are computed from, "
        "kept per rank so that a cluster run's points can be computed from its ranks' rows "
        "(docs/scale-out.md). Rows by rank, then longest total first.",
        std::move(cols),
        {"run_id"}};
  }();
  return t;
}

const store::DerivedTable& activation_patterns() {
  static const store::DerivedTable t{
      "activation_patterns",
      "Element-wise chains that compute a known activation (GELU, SiLU, ...) op by op, per "
      "rank (analyzers/roofline/activation.cpp; graph chains are rank 0's); the activation "
      "fact sums the ranks.",
      {integer("rank", "", "rank of the profile"), text("pattern", "activation name"),
       text("source", "ops (device ops or kernels), cpu_ops or graph"),
       integer("instances", "count", "chains found").or_null(),
       integer("ops_per_instance", "count", "ops in one chain").or_null(),
       real("total_us", "us", "their time").or_null(),
       text("example", "the rank's first chain, as its op names").or_null()},
      {"run_id"}};
  return t;
}

const store::DerivedTable& shape_alignment() {
  static const store::DerivedTable t{
      "shape_alignment",
      "Cube (matrix) op axes not a multiple of what the hardware tiles by "
      "(analyzers/roofline/shape_alignment.cpp).",
      {text("name", "op name"), text("type", "op type").or_null().as_symbol(),
       text("kind", "matmul_inner or attention_head_dim").as_symbol(),
       text("dim", "which axis (x1 inner axis, x2 inner axis, head dim)").or_null(),
       integer("value", "", "its size"),
       integer("multiple", "", "the size it should be a multiple of"),
       integer("padded", "", "the next multiple: the size to pad to"),
       integer("count", "count", "executions").or_null(),
       real("total_us", "us", "summed task time over the whole profile").or_null(),
       text("shapes", "the op's input shapes").or_null()},
      {"run_id"}};
  return t;
}

}  // namespace perfsage::analyzers::roofline::tables
