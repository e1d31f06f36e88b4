#include "analyzers/patterns/analyze_patterns.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "analyzers/core/shared_passes.h"
#include "analyzers/patterns/matcher.h"
#include "analyzers/patterns/op_graph.h"
#include "analyzers/patterns/shape_fusion.h"
#include "analyzers/patterns/structure.h"
#include "analyzers/patterns/tables.h"
#include "analyzers/patterns/transdata.h"
#include "store/bind.h"

namespace perfsage::analyzers {
namespace {

using patterns::OpGraph;

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ";") + s;
  return out;
}

// Profiled cost of a set of nodes: each op name counted once; count = fewest executions of
// a member that ran (how often the whole group executed).
struct Cost {
  double total_us = 0;
  int64_t count = 0;
  std::vector<std::string> ops;
};

Cost cost_of(const OpGraph& g, const std::vector<size_t>& nodes, const patterns::OpTimes& times) {
  Cost c;
  std::set<std::string> seen;
  for (size_t n : nodes)
    for (const auto& op : g.nodes[n].ops) {
      if (!seen.insert(op).second) continue;
      auto it = times.find(op);
      if (it == times.end()) continue;
      c.ops.push_back(op);
      c.total_us += it->second.total_us;
      c.count = c.count == 0 ? it->second.count : std::min(c.count, it->second.count);
    }
  return c;
}

}  // namespace

PatternSummary analyze_patterns(store::Database& db, int64_t run_id,
                                const std::vector<patterns::Pattern>& pats, SharedPasses* passes) {
  PatternSummary summary;
  // A model graph is the run's, costed with the op times of all ranks; without one, each
  // rank's task sequence with the rank's own op times, so that a rank's rows do not depend on
  // the other ranks (docs/scale-out.md, "Cluster runs").
  std::vector<OpGraph> views = patterns::graphs_from_store(db, run_id);
  std::map<int64_t, patterns::OpTimes> rank_times;  // the sequences' ranks' op times
  if (views.empty()) {
    // The op task pass is let go as soon as the sequences and their times are taken from it.
    std::shared_ptr<const OpTaskPass> tasks = op_task_pass(passes, db, run_id);
    views = patterns::sequences_from_tasks(*tasks);
    for (const auto& g : views)
      rank_times[g.rank] = patterns::load_op_times(db, run_id, g.rank, *tasks);
  } else if (passes) {
    passes->skip_op_tasks();
  }
  if (!views.empty()) summary.source = views.front().source;
  patterns::OpTimes times;
  double device_us = 0;
  bool loaded = false;
  std::optional<int64_t> times_of;  // the rank `times` are of; none: the run's
  auto load_times = [&](const OpGraph& g) {
    const std::optional<int64_t> want =
        g.source == "sequence" ? std::optional<int64_t>(g.rank) : std::nullopt;
    if (loaded && want == times_of) return;
    auto of_rank = want ? rank_times.find(*want) : rank_times.end();
    times = !want                         ? patterns::load_op_times(db, run_id)
            : of_rank != rank_times.end() ? of_rank->second
                                          : patterns::load_op_times(db, run_id, *want);
    loaded = true;
    times_of = want;
    device_us = 0;
    for (const auto& [name, t] : times) device_us += t.total_us;
  };

  store::Transaction txn(db);
  for (const char* table : {"fusion_candidates", "transdata_chains", "graph_cleanups"})
    db.prepare(std::string("DELETE FROM ") + table + " WHERE run_id=?1").bind(1, run_id).run();
  store::RowInserter add_candidate(db, patterns::tables::fusion_candidates());
  store::RowInserter add_chain(db, patterns::tables::transdata_chains());
  store::RowInserter add_cleanup(db, patterns::tables::graph_cleanups());
  auto share = [&](double us) { return device_us > 0 ? us / device_us : 0.0; };
  auto opt_bytes = [](int64_t b) { return b < 0 ? std::optional<int64_t>() : b; };

  for (const auto& g : views) {
    load_times(g);
    // Structural estimates (graphs only): fusing keeps every member's output but the last on
    // chip; removing a TransData or a clean-up node removes its output.
    const bool graph = g.source == "graph";
    const auto size = patterns::graph_size(g);
    auto format = graph ? std::optional<std::string>(g.format) : std::nullopt;
    for (const auto& m : patterns::find_matches(g, pats)) {
      std::vector<std::string> names, types;
      for (size_t n : m.nodes) {
        names.push_back(g.nodes[n].name);
        types.push_back(g.nodes[n].type);
      }
      Cost c = cost_of(g, m.nodes, times);
      std::vector<size_t> inner(m.nodes.begin(), m.nodes.end() - 1);
      auto est = patterns::estimate(g, size, inner);
      add_candidate.insert(run_id, g.rank, m.pattern->name, m.pattern->kind, m.pattern->pass,
                           m.pattern->fix, g.source, g.graph, join(names), join(types), join(c.ops),
                           int64_t{m.fused}, c.count, c.total_us, share(c.total_us), format,
                           graph ? opt_bytes(est.bytes) : std::nullopt,
                           graph ? std::optional<double>(est.share) : std::nullopt,
                           std::optional<std::string>(), std::optional<std::string>());
      ++summary.candidates;
    }
    for (const auto& chain : patterns::find_transdata_chains(g)) {
      std::vector<std::string> names, tds;
      for (size_t n : chain.nodes) names.push_back(g.nodes[n].name);
      for (size_t n : chain.transdata) tds.push_back(g.nodes[n].name);
      Cost c = cost_of(g, chain.transdata, times);
      auto est = patterns::estimate(g, size, chain.transdata);
      add_chain.insert(run_id, g.rank, chain.kind, g.source, g.graph, join(names), join(tds),
                       chain.formats, chain.culprit, c.count, c.total_us, share(c.total_us), format,
                       graph ? opt_bytes(est.bytes) : std::nullopt,
                       graph ? std::optional<double>(est.share) : std::nullopt);
      ++summary.chains;
    }
    if (!graph) continue;
    auto bias_adds = patterns::find_matmul_bias_adds(g);
    auto chains = patterns::find_eltwise_chains(g, bias_adds);
    bias_adds.insert(bias_adds.end(), chains.begin(), chains.end());
    for (const auto& f : bias_adds) {
      std::vector<std::string> names, types;
      for (size_t n : f.nodes) {
        names.push_back(g.nodes[n].name);
        types.push_back(g.nodes[n].type);
      }
      Cost c = cost_of(g, f.nodes, times);
      auto est = patterns::estimate(g, size, f.kept);
      add_candidate.insert(run_id, g.rank, f.pattern, f.kind, f.pass, std::string(), g.source,
                           g.graph, join(names), join(types), join(c.ops), int64_t{f.fused},
                           c.count, c.total_us, share(c.total_us), format, opt_bytes(est.bytes),
                           est.share, f.detail, f.rewrite);
      ++summary.candidates;
    }
    for (const auto& cl : patterns::find_cleanups(g)) {
      std::vector<std::string> names;
      for (size_t n : cl.nodes) names.push_back(g.nodes[n].name);
      auto est = patterns::estimate(g, size, cl.removed);
      add_cleanup.insert(run_id, g.graph, g.format, cl.kind, cl.pass, join(names),
                         static_cast<int64_t>(cl.removed.size()), cl.detail, int64_t{cl.exact},
                         opt_bytes(est.bytes), est.share, size.compute_nodes);
      ++summary.cleanups;
    }
  }
  txn.commit();
  return summary;
}

}  // namespace perfsage::analyzers
