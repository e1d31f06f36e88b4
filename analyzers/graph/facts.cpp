// Graph fact types: fusion_stat from fusion_result.json, graph_node from model graphs (with
// the graph_match analyzer's matches), dynamic_shape.
#include "analyzers/core/fact_types.h"

namespace perfsage::analyzers {

using store::FactType;
using store::median_of;
using store::SlotType;

void declare_graph_facts(std::vector<FactType>& out) {
  using T = SlotType;
  out.push_back(FactType{
      "fusion_stat",
      "Fusion pass statistics from fusion_result.json, summed over graphs: how often a pass "
      "found its pattern (match_times) and how often it rewrote the graph (effect_times).",
      "one per (pass, kind)",
      {
          {"pass", T::String, "", "fusion pass name", ""},
          {"kind", T::Symbol, "", "graph_fusion or ub_fusion", ""},
          {"graphs", T::Integer, "count", "graphs (session_and_graph_id) reporting the pass", ""},
          {"match_times", T::Integer, "count", "times the pattern matched", ""},
          {"effect_times", T::Integer, "count", "times the rewrite took effect", ""},
      },
      R"sql(SELECT pass, kind, count(DISTINCT coalesce(graph, '')) AS graphs,
  sum(coalesce(match_times, 0)) AS match_times, sum(coalesce(effect_times, 0)) AS effect_times
FROM fusion_stats WHERE run_id = ?1 GROUP BY pass, kind)sql"});

  out.push_back(FactType{
      "graph_node",
      "A model-graph node (GE dump or ONNX model) with its engine, fusion marks and the "
      "profiled time of the ops matched to it (graph_op_matches).",
      "one per (graph, node name) (at most 20000)",
      {
          {"graph", T::String, "", "graph name", ""},
          {"name", T::String, "", "node name", ""},
          {"type", T::Symbol, "", "op type", ""},
          {"engine", T::String, "", "engine (AIcoreEngine, DNN_VM_AICPU, ...)", ""},
          {"pass_name", T::String, "", "fusion pass that produced the node", ""},
          {"fusion_scope", T::Integer, "", "fusion scope id; -1 = not fused", "-1"},
          {"batch_split", T::Symbol, "", "yes when _is_n_batch_split is set (L2 fusion)", "no"},
          {"out_bytes", T::Integer, "bytes", "summed output tensor bytes", ""},
          {"in_bytes", T::Integer, "bytes", "summed input tensor bytes", ""},
          {"total_us", T::Float, "us", "summed task time of the matched ops", ""},
          {"mte2_ratio", T::Float, "ratio", "mean MTE2 busy ratio of the matched ops", ""},
          {"kernel_lib", T::String, "", "kernel library (aicpu_tf_kernel, AIcoreEngine, ...)", ""},
          {"unknown_shape", T::Symbol, "", "yes when GE marked the node's shapes unknown", "no"},
      },
      R"sql(WITH n AS (
  SELECT graph, name, max(type) AS type, max(engine) AS engine, max(pass_name) AS pass_name,
    max(coalesce(fusion_scope, -1)) AS fusion_scope,
    max(kernel_lib) AS kernel_lib, max(coalesce(unknown_shape, 0)) AS unknown_shape,
    max(CASE WHEN attrs LIKE '%"_is_n_batch_split":true%' OR attrs LIKE '%"_is_n_batch_split": true%'
             THEN 1 ELSE 0 END) AS split
  FROM graph_nodes WHERE run_id = ?1 GROUP BY graph, name),
t AS (
  SELECT graph, node, sum(CASE WHEN direction = 'output' THEN bytes END) AS out_bytes,
    sum(CASE WHEN direction = 'input' THEN bytes END) AS in_bytes
  FROM tensors WHERE run_id = ?1 GROUP BY graph, node),
ot AS MATERIALIZED (
  SELECT name, sum(dur_ns) AS dur_ns, sum(mte2_ratio) AS mte2_sum, count(mte2_ratio) AS mte2_n
  FROM op_tasks WHERE run_id = ?1 GROUP BY name),
m AS (
  SELECT g.graph, g.node, sum(o.dur_ns) / 1000.0 AS total_us,
    sum(o.mte2_sum) / nullif(sum(o.mte2_n), 0) AS mte2_ratio
  FROM graph_op_matches g JOIN ot o ON o.name = g.op_name
  WHERE g.run_id = ?1 GROUP BY g.graph, g.node)
SELECT n.graph, n.name, n.type, n.engine, n.pass_name, n.fusion_scope,
  CASE WHEN n.split THEN 'yes' ELSE 'no' END AS batch_split, t.out_bytes, t.in_bytes,
  m.total_us, m.mte2_ratio, n.kernel_lib,
  CASE WHEN n.unknown_shape THEN 'yes' ELSE 'no' END AS unknown_shape
FROM n LEFT JOIN t ON t.graph = n.graph AND t.node = n.name
  LEFT JOIN m ON m.graph = n.graph AND m.node = n.name
ORDER BY coalesce(m.total_us, 0) DESC LIMIT 20000)sql"});

  out.push_back(FactType{
      "dynamic_shape",
      "Dynamic-shape execution of an Ascend run: op names whose tasks recorded `OP State` "
      "dynamic or static (kernel_details / op_summary, CANN 8.0+), and graph nodes GE marked as "
      "unknown-shape in its dumps. Absent when neither kind of evidence exists.",
      "one per run with OP State or graph nodes",
      {
          {"ops", T::Integer, "count", "op names with an OP State", ""},
          {"dynamic_ops", T::Integer, "count", "op names run dynamic", ""},
          {"static_ops", T::Integer, "count", "op names run static", ""},
          {"dynamic_us", T::Float, "us", "task time of dynamic ops", ""},
          {"dynamic_share", T::Float, "ratio", "dynamic_us / summed task time", ""},
          {"top_dynamic_op", T::String, "", "dynamic op with the most task time", ""},
          {"graph_nodes", T::Integer, "count", "graph nodes in the run's dumps", ""},
          {"unknown_shape_nodes", T::Integer, "count", "graph nodes marked unknown-shape", ""},
          {"unknown_shape_graphs", T::Integer, "count", "graphs holding such nodes", ""},
      },
      // Op names with an OP State from the op_stats analyzer's per-name totals (grouped again:
      // one row per name, so ties order as when the tasks themselves were grouped).
      R"sql(WITH st AS (
  SELECT name, max(dynamic) AS dyn, max(static) AS sta, sum(state_dur_ns) AS ns
  FROM op_name_totals WHERE run_id = ?1 AND state_tasks > 0 GROUP BY name),
total AS (SELECT sum(dur_ns) AS ns FROM op_name_totals WHERE run_id = ?1),
g AS (SELECT count(*) AS nodes, sum(unknown_shape = 1) AS unknown,
             count(DISTINCT CASE WHEN unknown_shape = 1 THEN graph END) AS graphs
      FROM graph_nodes WHERE run_id = ?1)
SELECT (SELECT count(*) FROM st) AS ops, (SELECT count(*) FROM st WHERE dyn) AS dynamic_ops,
  (SELECT count(*) FROM st WHERE sta) AS static_ops,
  coalesce((SELECT sum(ns) FROM st WHERE dyn), 0) / 1000.0 AS dynamic_us,
  coalesce(CAST((SELECT sum(ns) FROM st WHERE dyn) AS REAL) / nullif((SELECT ns FROM total), 0), 0.0)
    AS dynamic_share,
  (SELECT name FROM st WHERE dyn ORDER BY ns DESC LIMIT 1) AS top_dynamic_op,
  g.nodes AS graph_nodes, coalesce(g.unknown, 0) AS unknown_shape_nodes,
  g.graphs AS unknown_shape_graphs
FROM g WHERE (SELECT count(*) FROM st) > 0 OR g.nodes > 0)sql"});
}

}  // namespace perfsage::analyzers
