// Pattern fact types: fusion_candidate, transdata_chain and graph_cleanup, from the patterns
// analyzer's fusion_candidates, transdata_chains and graph_cleanups.
#include "analyzers/core/fact_types.h"

namespace perfsage::analyzers {

using store::FactType;
using store::SlotType;

void declare_patterns_facts(std::vector<FactType>& out) {
  using T = SlotType;
  out.push_back(FactType{
      "fusion_candidate",
      "An occurrence of a fusion pattern (knowledge_bases/patterns/*.yaml) in the model graph, "
      "or, without a graph, in the device task sequence (consecutive tasks on one stream). "
      "`fused` is yes when the occurrence's own members were already merged (two share a UB "
      "fusion scope, one lists another among its original ops, or one came from the "
      "pattern's pass): such occurrences are not candidates. A member fused with nodes "
      "outside the occurrence does not count.",
      "one per occurrence (at most 5000, costliest first)",
      {
          {"pattern", T::String, "", "pattern name", ""},
          {"kind", T::Symbol, "", "ub_fusion, graph_fusion, aipp, ... (from the pattern file)", ""},
          {"pass", T::String, "", "fusion pass that fuses it, when known", ""},
          {"fix", T::String, "", "what to do when no pass applies (from the pattern file)", ""},
          {"source", T::Symbol, "", "graph or sequence", ""},
          {"graph", T::String, "", "graph name (empty for sequences)", ""},
          {"nodes", T::String, "", "matched node names, ';'-separated, in pattern order", ""},
          {"first", T::String, "", "first matched node", ""},
          {"last", T::String, "", "last matched node (the anchor of first-layer patterns)", ""},
          {"types", T::String, "", "matched op types, ';'-separated", ""},
          {"size", T::Integer, "count", "number of matched nodes", ""},
          {"fused", T::Symbol, "", "yes when already fused, else no", "no"},
          {"profiled", T::Symbol, "", "yes when the members were joined to profiled ops", "no"},
          {"count", T::Integer, "count", "executions of the group (fewest of a member)", ""},
          {"total_us", T::Float, "us", "summed task time of the members", ""},
          {"share", T::Float, "ratio",
           "total_us / summed device task time (several ranks: the mean of the ranks' shares)", ""},
          {"first_us", T::Float, "us", "task time of the first node (the cube op of UB patterns)",
           ""},
          {"last_us", T::Float, "us", "task time of the last node (the conv of AIPP patterns)", ""},
          {"graph_format", T::Symbol, "", "ge or onnx for graph occurrences, none for sequences",
           "none"},
          {"saved_bytes", T::Integer, "bytes",
           "graph only: output bytes of the members but the last, which fusion keeps on chip (0 "
           "when not recorded)",
           ""},
          {"structural_share", T::Float, "ratio",
           "graph only: saved_bytes over the output bytes of the graph's compute nodes when all "
           "are recorded, else the nodes fusion removes over the compute nodes",
           ""},
          {"detail", T::String, "",
           "shape-checked patterns (matmul_bias_add, eltwise_chain): the shapes that prove the "
           "pass applies and the element type, e.g. [32,512] + bias [512], FLOAT16",
           ""},
          {"rewrite", T::String, "",
           "the onnx_rewrite pass that performs it on the ONNX model (fuse_matmul_add), or empty",
           ""},
      },
      // first_us / last_us: time of the end nodes' ops (graph_op_matches, else same name), from
      // the op_stats analyzer's per-name totals (grouped again: one row per name, so SQLite
      // orders t as it did when it grouped the tasks themselves).
      // Each rank's sequence matches are merged over ranks (one rank's rows as they are).
      R"sql(WITH nranks AS (SELECT count(DISTINCT rank) AS n FROM fusion_candidates WHERE run_id = ?1),
fc AS (
  SELECT pattern, kind, pass, fix, source, graph, nodes, types, ops, fused, count, total_us, share,
    graph_format, saved_bytes, structural_share, detail, rewrite
  FROM fusion_candidates WHERE run_id = ?1 AND (SELECT n FROM nranks) = 1
  UNION ALL
  SELECT pattern, kind, pass, fix, source, graph, nodes, types, max(ops), fused, sum(count),
    sum(total_us), sum(share) / (SELECT n FROM nranks), graph_format, max(saved_bytes),
    max(structural_share), detail, rewrite
  FROM fusion_candidates WHERE run_id = ?1 AND (SELECT n FROM nranks) > 1
  GROUP BY pattern, kind, pass, fix, source, graph, nodes, types, fused, graph_format, detail,
    rewrite),
c AS MATERIALIZED (
  SELECT pattern, kind, pass, fix, source, graph, nodes,
    CASE WHEN instr(nodes, ';') > 0 THEN substr(nodes, 1, instr(nodes, ';') - 1) ELSE nodes END AS first,
    replace(nodes, rtrim(nodes, replace(nodes, ';', '')), '') AS last,
    types, length(nodes) - length(replace(nodes, ';', '')) + 1 AS size,
    CASE WHEN fused THEN 'yes' ELSE 'no' END AS fused,
    CASE WHEN coalesce(ops, '') <> '' THEN 'yes' ELSE 'no' END AS profiled,
    count, total_us, share, coalesce(graph_format, 'none') AS graph_format,
    saved_bytes, structural_share, coalesce(detail, '') AS detail, coalesce(rewrite, '') AS rewrite
  FROM fc ORDER BY total_us DESC, structural_share DESC
  LIMIT 5000),
t AS MATERIALIZED (
  SELECT name, sum(dur_ns) / 1000.0 AS us FROM op_name_totals
  WHERE run_id = ?1 AND name IN (SELECT first FROM c UNION SELECT last FROM c UNION
    SELECT op_name FROM graph_op_matches WHERE run_id = ?1)
  GROUP BY name)
SELECT c.*,
  coalesce((SELECT sum(us) FROM t WHERE t.name IN (SELECT op_name FROM graph_op_matches m
    WHERE m.run_id = ?1 AND m.graph = c.graph AND m.node = c.first UNION SELECT c.first)), 0) AS first_us,
  coalesce((SELECT sum(us) FROM t WHERE t.name IN (SELECT op_name FROM graph_op_matches m
    WHERE m.run_id = ?1 AND m.graph = c.graph AND m.node = c.last UNION SELECT c.last)), 0) AS last_us
FROM c ORDER BY c.total_us DESC)sql"});

  out.push_back(FactType{
      "transdata_chain",
      "TransData format conversions found along the graph or task sequence: redundant round "
      "trips (X->Y then Y->X within a few ops), pairs interrupted by a Reshape-class op, "
      "conversions between 5HD and NZ, single ND<->NZ and 4D<->5HD conversions, or TransData "
      "without recorded formats (kind unknown).",
      "one per (kind, source, formats, culprit): chains of one cause are one fact, the "
      "costliest chain giving graph, nodes and transdata (at most 5000, costliest first)",
      {
          {"kind", T::Symbol, "",
           "round_trip, reshape_interrupt, 5hd_nz, nd_nz, 4d_5hd, other or unknown", ""},
          {"source", T::Symbol, "", "graph or sequence", ""},
          {"graph", T::String, "", "graph name (empty for sequences)", ""},
          {"nodes", T::String, "", "node names along the chain, ';'-separated", ""},
          {"transdata", T::String, "", "the TransData nodes of the chain, ';'-separated", ""},
          {"first", T::String, "", "first TransData node", ""},
          {"formats", T::String, "", "formats along the chain, e.g. NCHW>NC1HWC0>NCHW", ""},
          {"culprit", T::String, "", "the interrupting op of a reshape_interrupt chain", ""},
          {"chains", T::Integer, "count",
           "chains of this kind, formats and culprit (one found on several ranks counts once)",
           "1"},
          {"count", T::Integer, "count", "executions (per chain: fewest of its TransData nodes)",
           ""},
          {"total_us", T::Float, "us", "summed task time of the TransData nodes of all chains", ""},
          {"share", T::Float, "ratio",
           "total_us / summed device task time (several ranks: the mean of the ranks' shares)", ""},
          {"graph_format", T::Symbol, "", "ge or onnx for graph chains, none for sequences",
           "none"},
          {"bytes", T::Integer, "bytes", "graph only: output bytes of the TransData nodes", ""},
          {"structural_share", T::Float, "ratio",
           "graph only: bytes over the output bytes of the graph's compute nodes when all are "
           "recorded, else TransData nodes over compute nodes",
           ""},
      },
      // Chains of one kind, formats and culprit are one cause: they are grouped, and the
      // costliest chain (taken with the group's single max()) names the example.
      // Over ranks: a chain found on several ranks counts once, its executions and time on
      // each; the share is the mean of the ranks'.
      R"sql(WITH nranks AS (SELECT count(DISTINCT rank) AS n FROM transdata_chains WHERE run_id = ?1)
SELECT kind, source, graph, nodes, transdata,
  CASE WHEN instr(transdata, ';') > 0 THEN substr(transdata, 1, instr(transdata, ';') - 1)
       ELSE transdata END AS first,
  formats, culprit, chains, count, total_us, share, graph_format, bytes, structural_share
FROM (SELECT kind, source, graph, nodes, transdata, formats, culprit,
        CASE WHEN (SELECT n FROM nranks) > 1 THEN count(DISTINCT transdata || '|' || nodes)
             ELSE count(*) END AS chains,
        sum(count) AS count, sum(total_us) AS total_us, sum(share) / (SELECT n FROM nranks) AS share,
        max(total_us) AS costliest, coalesce(max(graph_format), 'none') AS graph_format,
        sum(bytes) AS bytes, sum(structural_share) AS structural_share
      FROM transdata_chains WHERE run_id = ?1
      GROUP BY kind, source, formats, coalesce(culprit, ''))
ORDER BY total_us DESC, structural_share DESC LIMIT 5000)sql"});

  out.push_back(FactType{
      "graph_cleanup",
      "A clean-up an inference graph can take, found from its structure (no profile needed): "
      "an Identity, a Dropout in inference form, a Transpose with the identity permutation or "
      "two that cancel, a Cast to another type and back (input type known), a Conv followed "
      "by a BatchNormalization in inference form that can be folded into it (ONNX). `pass` "
      "names the onnx_rewrite pass that performs it.",
      "one per occurrence (at most 5000, largest structural share first)",
      {
          {"graph", T::String, "", "graph name", ""},
          {"graph_format", T::Symbol, "", "ge or onnx", ""},
          {"kind", T::Symbol, "",
           "identity, dropout, transpose_identity, transpose_inverse, cast_round_trip or "
           "fold_batchnorm",
           ""},
          {"pass", T::String, "", "the onnx_rewrite pass that performs it", ""},
          {"nodes", T::String, "", "the nodes concerned, ';'-separated", ""},
          {"first", T::String, "", "the first of them", ""},
          {"removed", T::Integer, "count", "nodes the clean-up removes", ""},
          {"detail", T::String, "",
           "types along a Cast round trip (FLOAT>FLOAT16>FLOAT) or the permutations", ""},
          {"exact", T::Symbol, "",
           "yes when the outputs stay the same; no when removing it changes them (a round trip "
           "through a narrower type drops a rounding step)",
           "yes"},
          {"bytes", T::Integer, "bytes", "output bytes of the removed nodes (0 when not recorded)",
           ""},
          {"structural_share", T::Float, "ratio",
           "bytes over the output bytes of the graph's compute nodes when all are recorded, "
           "else removed nodes over compute nodes",
           ""},
          {"compute_nodes", T::Integer, "count", "compute nodes of the graph", ""},
          {"instances", T::Integer, "count", "clean-ups of this kind in the graph", ""},
          {"kind_share", T::Float, "ratio", "their structural shares summed", ""},
          {"matched", T::Integer, "count",
           "removed nodes matched to profiled ops of their own (graph_op_matches, fused matches "
           "left out: a fused op's time is not one node's): the last `removed` of `nodes` are "
           "the ones the clean-up removes",
           "0"},
          {"measured_us", T::Float, "us",
           "profiled time of the matched removed nodes' ops per base unit (one rank's step, "
           "else the run); 0 without a match",
           "0.0"},
          {"measured_share", T::Float, "ratio", "measured_us / run base_us", "0.0"},
      },
      // The removed nodes are the last `removed` entries of `nodes` (a Conv stays, its
      // BatchNormalization goes); their ops' profiled time, summed over ranks, per base unit.
      R"sql(WITH {common},
g AS MATERIALIZED (SELECT rowid AS id, * FROM graph_cleanups WHERE run_id = ?1),
n AS MATERIALIZED (SELECT g.id, g.graph, CAST(j.value AS TEXT) AS node, j.key AS i,
        json_array_length('["' || replace(g.nodes, ';', '","') || '"]') AS total, g.removed
      FROM g, json_each('["' || replace(g.nodes, ';', '","') || '"]') j),
m AS (SELECT n.id, count(DISTINCT n.node) AS matched, sum(o.total_us) AS us
      FROM n CROSS JOIN graph_op_matches gm ON gm.run_id = ?1 AND gm.node = n.node AND gm.graph = n.graph
        -- A node fused into a larger op shares that op's time with the others: not its own cost.
        AND gm.match != 'fused'
      JOIN (SELECT name, sum(total_us) AS total_us FROM op_stats WHERE run_id = ?1 GROUP BY name) o
        ON o.name = gm.op_name
      WHERE n.i >= n.total - n.removed GROUP BY n.id)
SELECT graph, graph_format, kind, pass, nodes,
  CASE WHEN instr(nodes, ';') > 0 THEN substr(nodes, 1, instr(nodes, ';') - 1) ELSE nodes END AS first,
  removed, detail, CASE WHEN exact THEN 'yes' ELSE 'no' END AS exact, bytes, structural_share,
  compute_nodes, count(*) OVER (PARTITION BY graph, kind) AS instances,
  sum(structural_share) OVER (PARTITION BY graph, kind) AS kind_share,
  coalesce(m.matched, 0) AS matched,
  coalesce(m.us / (SELECT units FROM base), 0.0) AS measured_us,
  coalesce(m.us / (SELECT units FROM base) / nullif((SELECT us FROM base), 0), 0.0) AS measured_share
FROM g LEFT JOIN m ON m.id = g.id ORDER BY structural_share DESC LIMIT 5000)sql"});
}

}  // namespace perfsage::analyzers
