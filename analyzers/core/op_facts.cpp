// Ascend fact types: op (per op name), op_type and block_dim, from the op_stats analyzer's
// op_stats, op_type_stats and op_block_dims.
#include "analyzers/core/fact_types.h"

namespace perfsage::analyzers {

using store::FactType;
using store::median_of;
using store::SlotType;

namespace {

using T = SlotType;

FactType block_dim_type() {
  return FactType{
      "block_dim",
      "Block dims of AI Core and AI Vector Core tasks against the core count "
      "(msprof-analyze BlockDimChecker): a block dim that is not a multiple of the cores leaves "
      "cores idle in the last wave. Core counts come from info.json (hardware table); without "
      "it AI Core = the largest AI_CORE block dim and vector cores = 2 x AI Core (910B-class "
      "ratio), marked inferred. Absent for dynamic-shape runs (msprof-analyze skips them).",
      "one per core type (AI_CORE, AI_VECTOR_CORE) with block dims",
      {
          {"core_type", T::Symbol, "", "AI_CORE or AI_VECTOR_CORE", ""},
          {"cores", T::Integer, "count", "core count the block dims are judged against", ""},
          {"cores_source", T::Symbol, "", "run (info.json), inferred, or unknown", ""},
          {"tasks", T::Integer, "count", "tasks with a block dim", ""},
          {"total_us", T::Float, "us", "their summed duration", ""},
          {"misaligned_tasks", T::Integer, "count", "tasks whose block dim % cores != 0", ""},
          {"misaligned_ops", T::Integer, "count", "distinct op names among them", ""},
          {"misaligned_us", T::Float, "us", "their summed duration", ""},
          {"idle_core_us", T::Float, "us",
           "estimated time lost to idle cores in the last wave: dur x (1 - bd / (waves x cores))",
           ""},
          {"top_ops", T::String, "", "up to 5 misaligned op names, longest first, ';'-separated",
           ""},
      },
      // Tasks per (core type, name, block dim) from the op_stats analyzer's op_block_dims,
      // summed over ranks (one rank's rows as they are, in their order); a dynamic op from its
      // op_name_totals.
      R"sql(WITH hw AS (SELECT max(ai_core_num) AS aic, max(aiv_num) AS aiv FROM hardware WHERE run_id = ?1),
bdr AS MATERIALIZED (SELECT rank, core_type, name, block_dim, tasks, dur_ns FROM op_block_dims WHERE run_id = ?1),
nranks AS (SELECT count(DISTINCT rank) AS n FROM bdr),
bd AS MATERIALIZED (
  SELECT core_type, name, block_dim, tasks, dur_ns FROM bdr WHERE (SELECT n FROM nranks) = 1
  UNION ALL
  SELECT core_type, name, block_dim, sum(tasks), sum(dur_ns) FROM bdr WHERE (SELECT n FROM nranks) > 1
  GROUP BY core_type, name, block_dim),
inf AS (SELECT max(block_dim) AS aic FROM bd WHERE core_type = 'AI_CORE'),
c AS (SELECT 'AI_CORE' AS core_type,
        CASE WHEN (SELECT aic FROM hw) > 0 THEN (SELECT aic FROM hw) ELSE (SELECT aic FROM inf) END AS cores,
        CASE WHEN (SELECT aic FROM hw) > 0 THEN 'run' WHEN (SELECT aic FROM inf) > 0 THEN 'inferred'
             ELSE 'unknown' END AS src
      UNION ALL
      SELECT 'AI_VECTOR_CORE',
        CASE WHEN (SELECT aiv FROM hw) > 0 THEN (SELECT aiv FROM hw)
             WHEN (SELECT aic FROM hw) > 0 THEN (SELECT aic FROM hw)
             ELSE 2 * (SELECT aic FROM inf) END,
        CASE WHEN (SELECT aiv FROM hw) > 0 OR (SELECT aic FROM hw) > 0 THEN 'run'
             WHEN (SELECT aic FROM inf) > 0 THEN 'inferred' ELSE 'unknown' END),
t AS (SELECT o.core_type, o.name, o.tasks, o.dur_ns, o.block_dim, c.cores, c.src,
        CASE WHEN c.cores > 0 AND o.block_dim % c.cores != 0 THEN 1 ELSE 0 END AS bad
      FROM bd o CROSS JOIN c WHERE c.core_type = o.core_type),
top AS (SELECT core_type, name, sum(dur_ns) AS d FROM t WHERE bad = 1
        GROUP BY core_type, name ORDER BY d DESC)
SELECT t.core_type, max(t.cores) AS cores, max(t.src) AS cores_source, sum(t.tasks) AS tasks,
  sum(t.dur_ns) / 1000.0 AS total_us, sum(t.tasks * t.bad) AS misaligned_tasks,
  count(DISTINCT CASE WHEN t.bad = 1 THEN t.name END) AS misaligned_ops,
  sum(CASE WHEN t.bad = 1 THEN t.dur_ns ELSE 0 END) / 1000.0 AS misaligned_us,
  sum(CASE WHEN t.bad = 1 THEN t.dur_ns * (1.0 - CAST(t.block_dim AS REAL) /
        (((t.block_dim + t.cores - 1) / t.cores) * t.cores)) ELSE 0 END) / 1000.0 AS idle_core_us,
  (SELECT group_concat(name, ';') FROM (SELECT name FROM top WHERE top.core_type = t.core_type LIMIT 5)) AS top_ops
FROM t
WHERE NOT EXISTS (SELECT 1 FROM op_name_totals WHERE run_id = ?1 AND dynamic = 1)
GROUP BY t.core_type ORDER BY t.core_type)sql"};
}

}  // namespace

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
      "Ascend operators aggregated by op type and core type. Multiple ranks are merged; "
      "`share` is the mean over ranks.",
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
      // Per rank in op_type_stats: distinct names over the ranks from op_stats, the share the
      // mean of the ranks' shares (as the op fact's).
      R"sql(WITH nranks AS (SELECT count(DISTINCT rank) AS n FROM op_type_stats WHERE run_id = ?1)
SELECT type, core_type, sum(count) AS count,
  CASE WHEN (SELECT n FROM nranks) = 1 THEN sum(ops)
       ELSE (SELECT count(DISTINCT o.name) FROM op_stats o WHERE o.run_id = ?1 AND o.type = s.type
               AND o.core_type = s.core_type
               AND o.rank IN (SELECT rank FROM op_type_stats WHERE run_id = ?1)) END AS ops,
  sum(total_us) AS total_us, sum(total_us) / max(sum(count), 1) AS avg_us, max(max_us) AS max_us,
  sum(share) / (SELECT n FROM nranks) AS share
FROM op_type_stats s WHERE run_id = ?1 GROUP BY type, core_type)sql"});
  out.push_back(block_dim_type());
}

}  // namespace perfsage::analyzers
