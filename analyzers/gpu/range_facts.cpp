// Fact types of CUPTI range-profiler traces (analyzers/gpu/range_counters.cpp): range_counter
// (measured work per range name, placed against the part's ridge by intensity only) and
// range_profile (what such a trace holds, so that a report can say why time-based rules are
// silent on it). Definitions: docs/gpu-definitions.md, "CUPTI range profiler".
#include "analyzers/core/fact_types.h"

namespace perfsage::analyzers {

using store::FactType;
using store::SlotType;

void declare_gpu_range_facts(std::vector<FactType>& out) {
  using T = SlotType;
  out.push_back(FactType{
      "range_counter",
      "Measured work of one CUPTI range (a user range or a kernel) summed over ranks and "
      "repetitions: FLOPs per precision from the SASS thread-instruction counters (add + mul + "
      "2 x fma, as Nsight Compute counts them), Tensor Core instructions and DRAM bytes. Range "
      "times are replay times, not measured ones: the point is placed by intensity against the "
      "part's ridge, never by achieved rate. Ranges with Tensor Core instructions get side "
      "unknown: their FLOPs are not in the SASS counters, so the intensity would be too low.",
      "one per range name, at most 2000, most FLOPs first",
      {
          {"name", T::String, "", "range name (user range or kernel name)", ""},
          {"ranges", T::Integer, "count", "ranges recorded under the name", ""},
          {"replay_us", T::Float, "us", "replayed (not measured) time of the ranges", ""},
          {"flops", T::Float, "FLOP", "FLOPs of all precisions", ""},
          {"flops_fp16", T::Float, "FLOP", "FP16 FLOPs (-1 not recorded)", "-1.0"},
          {"flops_fp32", T::Float, "FLOP", "FP32 FLOPs (-1 not recorded)", "-1.0"},
          {"flops_fp64", T::Float, "FLOP", "FP64 FLOPs (-1 not recorded)", "-1.0"},
          {"tensor_insts", T::Float, "count", "Tensor Core warp instructions (-1 not recorded)",
           "-1.0"},
          {"dram_bytes", T::Float, "bytes", "DRAM bytes read and written (-1 not recorded)",
           "-1.0"},
          {"precision", T::Symbol, "",
           "the precision with the most FLOPs: fp16, fp32, fp64 or none", "none"},
          {"intensity", T::Float, "FLOP/byte", "flops / dram_bytes (-1 unknown)", "-1.0"},
          {"ridge", T::Float, "FLOP/byte",
           "the part's FP32 CUDA-core peak / its bandwidth for FP32 ranges; -1 otherwise (the "
           "FP16 peak on record is the Tensor Cores', not the CUDA cores' the counters count)",
           "-1.0"},
          {"side", T::Symbol, "", "memory (intensity below the ridge), compute, or unknown",
           "unknown"},
          {"share", T::Float, "ratio", "flops / FLOPs of all ranges", ""},
          {"part", T::String, "", "the matched hardware part", ""},
      },
      R"sql(WITH c AS (SELECT name, sum(ranges) AS ranges, sum(replay_ns) AS replay_ns,
        sum(flops_fp16) AS h, sum(flops_fp32) AS f, sum(flops_fp64) AS d, sum(tensor_insts) AS t,
        sum(dram_bytes) AS b FROM gpu_range_counters WHERE run_id = ?1 GROUP BY name),
hw AS (SELECT coalesce(part, '') AS part, peak_fp16, peak_fp32, bandwidth FROM hardware_specs
       WHERE run_id = ?1 LIMIT 1),
x AS (SELECT c.*, coalesce(h, 0) + coalesce(f, 0) + coalesce(d, 0) AS flops,
        CASE WHEN coalesce(h, 0) > 0 AND h >= coalesce(f, 0) AND h >= coalesce(d, 0) THEN 'fp16'
             WHEN coalesce(f, 0) > 0 AND f >= coalesce(d, 0) THEN 'fp32'
             WHEN coalesce(d, 0) > 0 THEN 'fp64' ELSE 'none' END AS precision FROM c),
y AS (SELECT x.*, CASE WHEN b > 0 AND flops > 0 THEN flops / b END AS intensity,
        -- The SASS counters count CUDA-core work: FP32's roof is the part's FP32 peak. The
        -- database's FP16 peak is the Tensor Cores' (4-8 times the CUDA cores' FP16 rate on
        -- Ampere and later), so FP16 ranges get no ridge rather than a wrong one.
        CASE precision WHEN 'fp32' THEN (SELECT peak_fp32 FROM hw) END
          / nullif((SELECT bandwidth FROM hw), 0) AS ridge FROM x)
SELECT name, ranges, replay_ns / 1000.0 AS replay_us, flops, coalesce(h, -1.0) AS flops_fp16,
  coalesce(f, -1.0) AS flops_fp32, coalesce(d, -1.0) AS flops_fp64,
  coalesce(t, -1.0) AS tensor_insts, coalesce(b, -1.0) AS dram_bytes, precision,
  coalesce(intensity, -1.0) AS intensity, coalesce(ridge, -1.0) AS ridge,
  CASE WHEN intensity IS NULL OR ridge IS NULL OR coalesce(t, 0) > 0 THEN 'unknown'
       WHEN intensity < ridge THEN 'memory' ELSE 'compute' END AS side,
  flops / nullif((SELECT sum(flops) FROM x), 0) AS share,
  coalesce((SELECT part FROM hw), '') AS part
FROM y ORDER BY flops DESC, name LIMIT 2000)sql"});

  out.push_back(FactType{
      "range_profile",
      "What a CUPTI range-profiler trace holds: its ranges, which counters they carry, and "
      "whether the run also recorded kernels (a range-profiler run records none: CUPTI's range "
      "profiler cannot run beside kernel tracing).",
      "one per run with CUPTI ranges",
      {
          {"ranges", T::Integer, "count", "range events", ""},
          {"names", T::Integer, "count", "distinct range names", ""},
          {"with_flops", T::Integer, "count", "names with FLOP counters", ""},
          {"with_bytes", T::Integer, "count", "names with DRAM byte counters", ""},
          {"with_tensor", T::Integer, "count", "names with Tensor Core instruction counters", ""},
          {"kernels", T::Integer, "count", "kernel activities in the run", ""},
          {"replay_us", T::Float, "us", "replayed time of all ranges", ""},
      },
      R"sql(WITH c AS (SELECT name, sum(ranges) AS ranges, sum(replay_ns) AS replay_ns,
        max(coalesce(flops_fp16, flops_fp32, flops_fp64) IS NOT NULL) AS has_f,
        max(dram_bytes IS NOT NULL) AS has_b, max(tensor_insts IS NOT NULL) AS has_t
      FROM gpu_range_counters WHERE run_id = ?1 GROUP BY name)
SELECT sum(ranges) AS ranges, count(*) AS names, sum(has_f) AS with_flops, sum(has_b) AS with_bytes,
  sum(has_t) AS with_tensor,
  (SELECT count(*) FROM device_events WHERE run_id = ?1 AND kind = 'kernel') AS kernels,
  sum(replay_ns) / 1000.0 AS replay_us
FROM c HAVING count(*) > 0)sql"});
}

}  // namespace perfsage::analyzers
