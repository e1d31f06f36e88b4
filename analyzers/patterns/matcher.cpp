#include "analyzers/patterns/matcher.h"

#include <algorithm>
#include <set>

namespace perfsage::analyzers::patterns {
namespace {

bool type_ok(const PatternNode& pn, const OpNode& n) {
  return pn.types.count(n.type) > 0;
}

// The anchor (last pattern node) must be the earliest node of its types in the graph.
bool first_of_its_types(const OpGraph& g, const PatternNode& pn, size_t node) {
  for (const auto& t : pn.types) {
    auto it = g.by_type.find(t);
    if (it == g.by_type.end()) continue;
    for (size_t other : it->second)
      if (g.nodes[other].order < g.nodes[node].order) return false;
  }
  return true;
}

class Search {
 public:
  Search(const OpGraph& g, const Pattern& p, size_t limit) : g_(g), p_(p), limit_(limit) {
    assigned_.assign(p.nodes.size(), SIZE_MAX);
  }

  std::vector<std::vector<size_t>> run() {
    extend(0);
    return found_;
  }

 private:
  // Candidates for pattern node i: neighbours of an assigned node it is connected to, else
  // every node of a matching type.
  std::vector<size_t> candidates(size_t i) const {
    for (auto [a, b] : p_.edges) {
      if (b == i && assigned_[a] != SIZE_MAX) return g_.succ[assigned_[a]];
      if (a == i && assigned_[b] != SIZE_MAX) return g_.pred[assigned_[b]];
    }
    std::vector<size_t> out;
    for (const auto& t : p_.nodes[i].types) {
      auto it = g_.by_type.find(t);
      if (it != g_.by_type.end()) out.insert(out.end(), it->second.begin(), it->second.end());
    }
    return out;
  }

  bool edges_ok(size_t i) const {
    for (auto [a, b] : p_.edges) {
      if (a > i || b > i || (a != i && b != i)) continue;
      const auto& s = g_.succ[assigned_[a]];
      if (std::find(s.begin(), s.end(), assigned_[b]) == s.end()) return false;
    }
    return true;
  }

  void extend(size_t i) {
    if (found_.size() >= limit_) return;
    if (i == p_.nodes.size()) {
      found_.push_back(assigned_);
      return;
    }
    for (size_t n : candidates(i)) {
      if (!type_ok(p_.nodes[i], g_.nodes[n])) continue;
      if (std::find(assigned_.begin(), assigned_.begin() + i, n) != assigned_.begin() + i) continue;
      assigned_[i] = n;
      if (edges_ok(i)) extend(i + 1);
      assigned_[i] = SIZE_MAX;
    }
  }

  const OpGraph& g_;
  const Pattern& p_;
  size_t limit_;
  std::vector<size_t> assigned_;
  std::vector<std::vector<size_t>> found_;
};

}  // namespace

bool merged_members(const OpGraph& g, const Pattern& p, const std::vector<size_t>& nodes) {
  for (size_t a : nodes) {
    const OpNode& na = g.nodes[a];
    if (!p.pass.empty() && na.pass == p.pass) return true;
    for (size_t b : nodes) {
      if (a == b) continue;
      const OpNode& nb = g.nodes[b];
      if (na.fusion_scope >= 0 && na.fusion_scope == nb.fusion_scope) return true;
      if (std::find(na.originals.begin(), na.originals.end(), nb.name) != na.originals.end())
        return true;
    }
  }
  return false;
}

std::vector<Match> find_matches(const OpGraph& g, const std::vector<Pattern>& patterns,
                                size_t limit) {
  std::vector<Match> all;
  for (const auto& declared : patterns) {
    if (g.source == "sequence" && !declared.chain) continue;
    size_t mine = 0;
    for (const auto& variant : expand_optional(declared)) {
      for (auto& nodes : Search(g, variant, limit).run()) {
        if (declared.first_layer && !first_of_its_types(g, variant.nodes.back(), nodes.back()))
          continue;
        if (mine++ >= limit) break;
        Match m{&declared, std::move(nodes), false};
        m.fused = merged_members(g, declared, m.nodes);
        all.push_back(std::move(m));
      }
    }
  }
  // Keep maximal occurrences per kind: an occurrence whose nodes are all inside a larger one
  // (an optional element left out, or a smaller pattern of the same kind) is the same cause.
  std::vector<std::set<size_t>> sets;
  for (const auto& m : all) sets.emplace_back(m.nodes.begin(), m.nodes.end());
  std::vector<Match> out;
  for (size_t i = 0; i < all.size(); ++i) {
    bool dominated = false;
    for (size_t j = 0; j < all.size() && !dominated; ++j) {
      if (i == j || all[i].pattern->kind != all[j].pattern->kind) continue;
      if (sets[j].size() < sets[i].size()) continue;
      bool subset = std::includes(sets[j].begin(), sets[j].end(), sets[i].begin(), sets[i].end());
      dominated = subset && (sets[j].size() > sets[i].size() || j < i);
    }
    if (!dominated) out.push_back(std::move(all[i]));
  }
  return out;
}

}  // namespace perfsage::analyzers::patterns
