#include <map>
#include <set>
#include <stdexcept>

#include "analyzers/core/analyzer.h"

namespace perfsage::analyzers {

std::vector<std::set<size_t>> analyzer_inputs(const std::vector<Analyzer>& declared) {
  std::map<std::string, std::vector<size_t>> writers;  // table -> analyzers producing rows of it
  std::set<std::string> owned;
  for (size_t i = 0; i < declared.size(); ++i) {
    for (const auto& t : declared[i].writes) {
      if (!owned.insert(t.name).second) {
        throw std::logic_error("derived table " + t.name + " is declared by two analyzers");
      }
      writers[t.name].push_back(i);
    }
    for (const auto& t : declared[i].adds_to) writers[t].push_back(i);
  }
  std::vector<std::set<size_t>> waits_for(declared.size());
  for (size_t i = 0; i < declared.size(); ++i) {
    for (const auto& table : declared[i].reads) {
      auto it = writers.find(table);
      if (it == writers.end()) continue;
      for (size_t w : it->second)
        if (w != i) waits_for[i].insert(w);
    }
  }
  return waits_for;
}

std::vector<Analyzer> order_analyzers(std::vector<Analyzer> declared) {
  // Kahn's algorithm, always taking the first ready analyzer in declaration order, so that the
  // order only changes where a declaration demands it.
  const std::vector<std::set<size_t>> waits_for = analyzer_inputs(declared);
  std::vector<Analyzer> ordered;
  std::vector<bool> done(declared.size(), false);
  while (ordered.size() < declared.size()) {
    size_t next = declared.size();
    for (size_t i = 0; i < declared.size() && next == declared.size(); ++i) {
      if (done[i]) continue;
      bool ready = true;
      for (size_t w : waits_for[i]) ready &= done[w];
      if (ready) next = i;
    }
    if (next == declared.size()) {
      std::string stuck;
      for (size_t i = 0; i < declared.size(); ++i)
        if (!done[i]) stuck += (stuck.empty() ? "" : ", ") + declared[i].name;
      throw std::logic_error("analyzers read each other's tables in a cycle: " + stuck);
    }
    done[next] = true;
    ordered.push_back(declared[next]);
  }
  return ordered;
}

const std::vector<Analyzer>& analyzers() {
  // Where several are ready, the first listed starts first: the longest on their kind of run
  // (op_stats on op tables, gpu_launches on Kineto traces) lead, after the GPU step windows,
  // which are short and which the next two longest (gpu_timeline, iteration) wait for.
  static const std::vector<Analyzer> all = order_analyzers(
      {op_stats_analyzer(), gpu_analyzer(), gpu_launches_analyzer(), gpu_launch_links_analyzer(),
       gpu_timeline_analyzer(), iteration_analyzer(), cpu_self_time_analyzer(),
       rank_totals_analyzer(), graph_match_analyzer(), patterns_analyzer(), roofline_analyzer()});
  return all;
}

std::vector<store::DerivedTable> derived_tables() {
  std::vector<store::DerivedTable> tables;
  for (const auto& a : analyzers()) tables.insert(tables.end(), a.writes.begin(), a.writes.end());
  return tables;
}

}  // namespace perfsage::analyzers
