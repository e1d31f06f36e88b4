// Roofline family fact types: hardware_spec, roofline (per op), roofline_type,
// roofline_coverage, activation and shape_alignment (from the roofline analyzer's tables).
#include "analyzers/core/fact_types.h"
#include "analyzers/roofline/tables.h"

namespace perfsage::analyzers {

using store::FactType;
using store::median_of;
using store::SlotType;

void declare_roofline_facts(std::vector<FactType>& out) {
  using T = SlotType;
  out.push_back(FactType{
      "hardware_spec",
      "The run's device resolved against the hardware database (`knowledge_bases/hardware/`): "
      "peaks and bandwidth, and where each came from. The run's own facts (info.json core "
      "count and clock, Kineto SM count and memory) override the table; without a chip name on "
      "Ascend, cube cores are inferred from the largest AI_CORE block dim. `vendor`, `arch`, "
      "`isa` and `matrix_*` say what the device's matrix units (Tensor Cores, AMD MFMA "
      "matrix cores) run, from the part's table entry or, for an NVIDIA device the "
      "table lacks, from its compute capability: decide precision advice from them, never "
      "from `compute_major` alone (AMD reports 9.x for CDNA parts).",
      "one per analysed run",
      {
          {"part", T::String, "", "matched hardware-database part, empty when none", ""},
          {"match", T::Symbol, "",
           "alias, pattern, generic (name + cores/clock), vendor (AMD: CU count + memory), "
           "block_dim or none",
           "none"},
          {"candidates", T::String, "", "parts that fit equally well (ambiguous inference)", ""},
          {"family", T::Symbol, "", "ascend, cuda (any GPU: CUDA or ROCm/HIP) or unknown", ""},
          {"vendor", T::Symbol, "", "nvidia, amd, huawei or unknown", "unknown"},
          {"arch", T::Symbol, "",
           "volta, turing, ampere, ada, hopper, blackwell (NVIDIA), cdna1, cdna2, cdna3 (AMD) "
           "or unknown",
           "unknown"},
          {"isa", T::Symbol, "", "architecture id: sm_70, sm_90, gfx90a, gfx942, ... or unknown",
           "unknown"},
          {"cube_cores", T::Integer, "count", "Ascend AI (cube) cores", ""},
          {"vector_cores", T::Integer, "count", "Ascend vector cores", ""},
          {"sm_count", T::Integer, "count", "GPU SMs (NVIDIA) or compute units (AMD)", ""},
          {"freq_mhz", T::Float, "MHz", "core clock", ""},
          {"compute_major", T::Integer, "",
           "computeMajor as the run reports it (0 unknown): the CUDA compute capability's major "
           "version on NVIDIA; on AMD the gfx id's major digit (9 for gfx908, gfx90a and "
           "gfx942), not a CUDA generation",
           ""},
          {"matrix_fp16", T::Symbol, "", "the matrix units run FP16: yes, no or unknown",
           "unknown"},
          {"matrix_bf16", T::Symbol, "", "the matrix units run BF16: yes, no or unknown",
           "unknown"},
          {"matrix_tf32", T::Symbol, "",
           "the matrix units run TF32 (AMD XF32 counts): yes, no or unknown", "unknown"},
          {"matrix_fp8", T::Symbol, "", "the matrix units run FP8: yes, no or unknown", "unknown"},
          {"peak_fp32", T::Float, "FLOP/s", "FP32 peak (CUDA cores)", ""},
          {"peak_tf32", T::Float, "FLOP/s", "TF32 Tensor-Core peak", ""},
          {"peak_fp16", T::Float, "FLOP/s", "FP16 peak (cube / Tensor Cores)", ""},
          {"peak_int8", T::Float, "OP/s", "INT8 peak", ""},
          {"bandwidth", T::Float, "bytes/s", "device memory bandwidth", ""},
          {"cores_source", T::Symbol, "", "run, table, inferred or unknown", ""},
          {"peak_source", T::Symbol, "", "run, table, inferred or unknown", ""},
          {"bw_source", T::Symbol, "", "run, table, inferred or unknown", ""},
          {"note", T::String, "", "how the part was chosen, or why none was", ""},
      },
      R"sql(SELECT part, match, candidates, family, CAST(cube_cores AS INTEGER) AS cube_cores,
  CAST(vector_cores AS INTEGER) AS vector_cores, CAST(sm_count AS INTEGER) AS sm_count, freq_mhz,
  compute_major, peak_fp32, peak_tf32, peak_fp16, peak_int8, bandwidth, cores_source, peak_source,
  bw_source, note, vendor, arch, isa, matrix_fp16, matrix_bf16, matrix_tf32, matrix_fp8
  FROM hardware_specs WHERE run_id = ?1)sql"});

  out.push_back(FactType{
      "roofline",
      "One roofline point per Ascend op name (`scope` op: FLOPs and bytes from the op's "
      "counters, or modelled from shapes when the run has no counters) or per GPU-launching "
      "CPU op and input shapes (`scope` gpu_op: modelled from `Input Dims`, time = its "
      "kernels). `bound` is compute or memory when the op reaches 80 % of the roof, latency "
      "below it, insufficient_data when FLOPs, bytes or peaks are missing (`reason` says which).",
      "one per (scope, op name, shapes), at most 20000, longest first",
      {
          {"scope", T::Symbol, "",
           "op (Ascend), gpu_op (Kineto op + shapes) or kernel (unlinked GPU kernel, always "
           "insufficient_data)",
           ""},
          {"name", T::String, "", "op name (Ascend) or CPU op name (aten::addmm)", ""},
          {"type", T::Symbol, "", "op type", ""},
          {"core_type", T::Symbol, "", "AI_CORE, AI_VECTOR_CORE, MIX_*, GPU", ""},
          {"count", T::Integer, "count", "executions", ""},
          {"total_us", T::Float, "us", "summed device time", ""},
          {"share", T::Float, "ratio", "share of summed device (task or kernel) time", ""},
          {"flops", T::Float, "FLOP", "summed floating-point operations", ""},
          {"bytes", T::Float, "bytes", "summed memory traffic", ""},
          {"source", T::Symbol, "", "counter, model or none", "none"},
          {"precision", T::Symbol, "", "roof used: fp32, tf32, fp16, bf16, int8, vector_fp16", ""},
          {"intensity", T::Float, "FLOP/byte", "arithmetic intensity", ""},
          {"ridge", T::Float, "FLOP/byte", "peak / bandwidth", ""},
          {"attainable", T::Float, "FLOP/s", "min(peak, bandwidth x intensity)", ""},
          {"achieved", T::Float, "FLOP/s", "flops / total time", ""},
          {"utilisation", T::Float, "ratio", "achieved / attainable", ""},
          {"roof_us", T::Float, "us", "time the op would take on the roof", ""},
          {"bound", T::Symbol, "",
           "compute, memory, latency, insufficient_data, or invalid (above its roof: a data "
           "problem, not a point)",
           ""},
          {"cause", T::Symbol, "", "latency cause: pipeline, compute, memory, launch, unknown", ""},
          {"dominant_pipe", T::Symbol, "",
           "busiest pipe (mac, vec, scalar, mte1, mte2, mte3, fixpipe)", "none"},
          {"pipe_ratio", T::Float, "ratio", "busy ratio of the dominant pipe (-1 unknown)", "-1.0"},
          {"kernel", T::String, "", "longest kernel launched (gpu_op)", ""},
          {"reason", T::String, "", "why the point is insufficient_data", ""},
      },
      R"sql(SELECT scope, name, type, core_type, count, total_us, share, flops, bytes,
  CASE WHEN flops_source = bytes_source THEN flops_source WHEN flops IS NULL THEN 'none'
       ELSE flops_source END AS source, precision, intensity, ridge, attainable, achieved,
  utilisation, roof_us, bound, cause, nullif(dominant_pipe, '') AS dominant_pipe,
  coalesce(pipe_ratio, -1.0) AS pipe_ratio, kernel, reason
FROM roofline_ops WHERE run_id = ?1 ORDER BY total_us DESC LIMIT 20000)sql"});

  out.push_back(FactType{
      "roofline_type",
      "Roofline points aggregated per (scope, op type, bound): how much time each op type "
      "spends in each bound class.",
      "one per (scope, op type, bound)",
      {
          {"scope", T::Symbol, "", "op or gpu_op", ""},
          {"type", T::Symbol, "", "op type", ""},
          {"bound", T::Symbol, "", "compute, memory, latency or insufficient_data", ""},
          {"ops", T::Integer, "count", "roofline points", ""},
          {"total_us", T::Float, "us", "summed device time", ""},
          {"share", T::Float, "ratio", "summed share of device time", ""},
          {"roof_us", T::Float, "us", "summed time on the roof", ""},
          {"utilisation", T::Float, "ratio", "time-weighted utilisation of the roof", ""},
      },
      R"sql(SELECT scope, type, bound, count(*) AS ops, sum(total_us) AS total_us, sum(share) AS share,
  sum(roof_us) AS roof_us, sum(utilisation * total_us) / nullif(sum(CASE WHEN utilisation IS NOT NULL THEN total_us END), 0) AS utilisation
FROM roofline_ops WHERE run_id = ?1 GROUP BY scope, type, bound ORDER BY total_us DESC LIMIT 20000)sql"});

  out.push_back(FactType{
      "roofline_coverage",
      "Whether the run has what a roofline needs. `status` is ok when at least one point "
      "could be classified, insufficient_data when ops exist but none could (`reason` gives "
      "the most common cause). Points above their roof are data problems (bound `invalid`: "
      "the FLOP model or the peak is wrong), counted here and never plotted; ops whose FLOPs "
      "no model can count with certainty (unknown op type, layout or operand roles) are "
      "counted as `no_flop_model`. Absent when the run has no Ascend compute ops and no GPU "
      "kernels linked to CPU ops.",
      "one per run with roofline points",
      {
          {"status", T::Symbol, "", "ok or insufficient_data", ""},
          {"points", T::Integer, "count", "roofline points", ""},
          {"classified", T::Integer, "count", "points with a bound", ""},
          {"insufficient", T::Integer, "count", "points without a bound", ""},
          {"insufficient_us", T::Float, "us", "device time of those points", ""},
          {"with_flops", T::Integer, "count", "points with a FLOP count", ""},
          {"with_bytes", T::Integer, "count", "points with a byte count", ""},
          {"reason", T::String, "", "most common reason for insufficient_data", ""},
          {"part", T::String, "", "hardware part used for the roofs", ""},
          {"no_flop_model", T::Integer, "count",
           "ops left out because no FLOP model is sure of them", ""},
          {"no_flop_model_us", T::Float, "us", "their summed device time", ""},
          {"example_no_model", T::String, "", "the longest of them", ""},
          {"above_roof", T::Integer, "count", "ops above their roof (bound invalid)", ""},
          {"above_roof_us", T::Float, "us", "their summed device time", ""},
          {"above_roof_max", T::Float, "ratio", "the highest achieved / attainable among them", ""},
          {"above_roof_op", T::String, "", "the op with that utilisation", ""},
          {"above_roof_reason", T::String, "", "its reason (which count or peak is suspect)", ""},
      },
      R"sql(WITH r AS MATERIALIZED (SELECT * FROM roofline_ops WHERE run_id = ?1),
why AS (SELECT reason FROM r WHERE bound = 'insufficient_data' GROUP BY reason
        ORDER BY sum(total_us) DESC LIMIT 1),
nm AS (SELECT name, total_us FROM r WHERE bound = 'insufficient_data'
         AND (reason LIKE 'no FLOP model%' OR reason LIKE '%layout%' OR reason LIKE '%not sure%')),
bad AS (SELECT name, utilisation, reason FROM r WHERE bound = 'invalid'
        ORDER BY utilisation DESC LIMIT 1)
SELECT CASE WHEN sum(bound IN ('compute', 'memory', 'latency')) > 0 THEN 'ok'
            ELSE 'insufficient_data' END AS status,
  count(*) AS points, sum(bound IN ('compute', 'memory', 'latency')) AS classified,
  sum(bound = 'insufficient_data') AS insufficient,
  coalesce(sum(CASE WHEN bound = 'insufficient_data' THEN total_us END), 0.0) AS insufficient_us,
  count(flops) AS with_flops, count(bytes) AS with_bytes, (SELECT reason FROM why) AS reason,
  (SELECT part FROM hardware_specs WHERE run_id = ?1) AS part,
  (SELECT count(*) FROM nm) AS no_flop_model,
  coalesce((SELECT sum(total_us) FROM nm), 0.0) AS no_flop_model_us,
  (SELECT name FROM nm ORDER BY total_us DESC LIMIT 1) AS example_no_model,
  sum(bound = 'invalid') AS above_roof,
  coalesce(sum(CASE WHEN bound = 'invalid' THEN total_us END), 0.0) AS above_roof_us,
  (SELECT utilisation FROM bad) AS above_roof_max, (SELECT name FROM bad) AS above_roof_op,
  (SELECT reason FROM bad) AS above_roof_reason
FROM r HAVING count(*) > 0)sql"});

  out.push_back(FactType{
      "activation",
      "Activation functions executed as chains of primitive ops: mish (Softplus -> Tanh -> "
      "Mul), gelu_erf (Div -> Erf -> Add -> Mul -> Mul), silu (Sigmoid -> Mul); found in the "
      "device op sequence (`ops`), Kineto CPU ops (`cpu_ops`, timed by their kernels) or model "
      "graphs (`graph`, untimed).",
      "one per (pattern, source)",
      {
          {"pattern", T::Symbol, "", "mish, gelu_erf or silu", ""},
          {"source", T::Symbol, "", "ops, cpu_ops or graph", ""},
          {"instances", T::Integer, "count", "chains found", ""},
          {"ops_per_instance", T::Integer, "count", "primitive ops per chain", ""},
          {"total_us", T::Float, "us", "summed time of the chains' ops (0 for graph)", ""},
          {"share", T::Float, "ratio",
           "share of summed device time; on runs without device time (CPU-only), of the run's "
           "base (total / base units / base)",
           ""},
          {"share_of", T::String, "", "what share is of: device time, the step or the run", ""},
          {"example", T::String, "", "op names of the first chain", ""},
      },
      // activation_patterns has a row per rank: summed here, the example the lowest rank's.
      // Device time: every kernel and Ascend op task (kernel_totals, rank_totals).
      R"sql(WITH {common},
dev AS (SELECT (coalesce((SELECT sum(dur_ns) FROM kernel_totals WHERE run_id = ?1), 0)
                + coalesce((SELECT sum(op_busy_ns) FROM rank_totals WHERE run_id = ?1), 0))
               / 1000.0 AS us),
a AS (SELECT pattern, source, sum(instances) AS instances,
        max(ops_per_instance) AS ops_per_instance, sum(total_us) AS total_us,
        CASE WHEN source = 'graph' THEN 0.0
             WHEN (SELECT us FROM dev) > 0 THEN sum(total_us) / (SELECT us FROM dev) END
          AS share
      FROM activation_patterns WHERE run_id = ?1 GROUP BY pattern, source)
SELECT pattern, source, instances, ops_per_instance, total_us,
  coalesce(share, total_us / (SELECT units FROM base) / nullif((SELECT us FROM base), 0), 0.0)
    AS share,
  CASE WHEN share IS NULL THEN 'the ' || (SELECT kind FROM base) ELSE 'device time' END
    AS share_of,
  (SELECT example FROM activation_patterns e
   WHERE e.run_id = ?1 AND e.pattern = a.pattern AND e.source = a.source
     AND e.example IS NOT NULL ORDER BY e.rank LIMIT 1) AS example
FROM a)sql"});

  out.push_back(store::projection_fact(
      roofline::tables::shape_alignment(),
      {"shape_alignment",
       "Cube operators with an unaligned axis (msprof-analyze AICorePerformanceChecker shape "
       "affinity): a MatMul operand whose contiguous (last) axis is not a multiple of 512 bytes "
       "(256 FP16/BF16 elements, 128 FP32) and is not stored as FRACTAL_NZ, or a FlashAttention "
       "head dim that is not a multiple of 128 (the layout inferred as for its FLOP model).",
       "one per (op name, kind, axis)",
       {"name", "type", "kind", "dim", "value", "multiple", "padded", "count", "total_us",
        "shapes"},
       "total_us DESC",
       5000}));
}

}  // namespace perfsage::analyzers
