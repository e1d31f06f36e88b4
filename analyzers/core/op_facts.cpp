// Ascend fact types: op (per op name) and op_type, from the op_stats analyzer's op_stats and
// op_type_stats.
#include "analyzers/core/fact_types.h"

namespace perfsage::analyzers {

using store::FactType;
using store::median_of;
using store::SlotType;

void declare_op_facts(std::vector<FactType>& out) {
  using T = SlotType;
  out.push_back(FactType{
      "op",
      "One Ascend operator (by op name) with its timing statistics, shapes, data types, "
      "formats and pipeline ratios. Multiple ranks are merged; `share` is the mean over ranks.",
      "one per (op name, type, core type)",
      {
          {"name", T::String, "", "op name", ""},
          {"type", T::Symbol, "", "op type (Cast, MatMulV2, ...)", ""},
          {"core_type", T::Symbol, "", "AI_CORE, AI_VECTOR_CORE, AI_CPU, MIX_AIC, HCCL, ...", ""},
          {"count", T::Integer, "count", "executions", ""},
          {"total_us", T::Float, "us", "summed task duration", ""},
          {"avg_us", T::Float, "us", "mean task duration", ""},
          {"min_us", T::Float, "us", "shortest task", ""},
          {"max_us", T::Float, "us", "longest task", ""},
          {"share", T::Float, "ratio", "share of summed device task time", ""},
          {"block_dim", T::Integer, "", "block dim (cores used)", ""},
          {"input_dtypes", T::String, "", "input data types, ';'-separated", ""},
          {"output_dtypes", T::String, "", "output data types, ';'-separated", ""},
          {"input_formats", T::String, "", "input formats, ';'-separated", ""},
          {"output_formats", T::String, "", "output formats, ';'-separated", ""},
          {"input_shapes", T::String, "", "input shapes, ';'-separated", ""},
          {"op_state", T::String, "", "static or dynamic when recorded", ""},
          {"cube_fops", T::Float, "count", "cube floating-point operations", ""},
          {"vector_fops", T::Float, "count", "vector floating-point operations", ""},
          {"mac_ratio", T::Float, "ratio", "cube (MAC) pipe busy ratio", ""},
          {"vec_ratio", T::Float, "ratio", "vector pipe busy ratio", ""},
          {"mte2_ratio", T::Float, "ratio", "MTE2 (GM to local) pipe busy ratio", ""},
      },
      R"sql(WITH nranks AS (SELECT count(DISTINCT rank) AS n FROM op_stats WHERE run_id = ?1),
single AS (  -- one rank: op_stats rows are already one per op, no grouping needed
  SELECT name, type, core_type, count, total_us, avg_us, min_us, max_us, share, block_dim,
    input_dtypes, output_dtypes, input_formats, output_formats, input_shapes, op_state, cube_fops,
    vector_fops, mac_ratio, vec_ratio, mte2_ratio
  FROM op_stats WHERE run_id = ?1 AND (SELECT n FROM nranks) = 1),
stats AS (
  SELECT name, type, core_type, sum(count) AS count, sum(total_us) AS total_us,
    sum(total_us) / max(sum(count), 1) AS avg_us, min(min_us) AS min_us, max(max_us) AS max_us,
    sum(share) / (SELECT n FROM nranks) AS share, max(block_dim) AS block_dim,
    max(input_dtypes) AS input_dtypes, max(output_dtypes) AS output_dtypes,
    max(input_formats) AS input_formats, max(output_formats) AS output_formats,
    max(input_shapes) AS input_shapes, max(op_state) AS op_state, sum(cube_fops) AS cube_fops,
    sum(vector_fops) AS vector_fops, avg(mac_ratio) AS mac_ratio, avg(vec_ratio) AS vec_ratio,
    avg(mte2_ratio) AS mte2_ratio
  FROM op_stats WHERE run_id = ?1 AND (SELECT n FROM nranks) > 1 GROUP BY name, type, core_type)
SELECT * FROM single UNION ALL SELECT * FROM stats
ORDER BY total_us DESC LIMIT 100000)sql"});

  out.push_back(FactType{
      "op_type",
      "Ascend operators aggregated by op type and core type.",
      "one per (op type, core type)",
      {
          {"type", T::Symbol, "", "op type", ""},
          {"core_type", T::Symbol, "", "core type", ""},
          {"count", T::Integer, "count", "executions", ""},
          {"ops", T::Integer, "count", "distinct op names of this type", ""},
          {"total_us", T::Float, "us", "summed task duration", ""},
          {"avg_us", T::Float, "us", "mean task duration", ""},
          {"max_us", T::Float, "us", "longest task", ""},
          {"share", T::Float, "ratio", "share of summed device task time", ""},
      },
      R"sql(SELECT type, core_type, sum(count) AS count, sum(ops) AS ops, sum(total_us) AS total_us,
  sum(total_us) / max(sum(count), 1) AS avg_us, max(max_us) AS max_us, sum(share) AS share
FROM op_type_stats WHERE run_id = ?1 GROUP BY type, core_type)sql"});
}

}  // namespace perfsage::analyzers
