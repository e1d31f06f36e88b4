// Name matching between graph nodes and profiled ops, independent of the store.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace perfsage::analyzers::graph {

// How a profiled op name was tied to a graph node, strongest first.
enum class MatchKind { exact, trans_prefix, original, fused };
const char* match_kind_name(MatchKind k);

struct NodeRef {
  std::string graph, name;
};

struct NameMatch {
  size_t node;  // index into the nodes given to NameIndex
  MatchKind kind;
};

// Indexes node names (and the pre-fusion names each node absorbed) for look-ups by op name.
class NameIndex {
 public:
  // `original_names[i]` are node i's _datadump_original_op_names (may be empty).
  NameIndex(std::vector<NodeRef> nodes,
            const std::vector<std::vector<std::string>>& original_names);

  // The nodes an op name belongs to, at the strongest kind that matches any node:
  //  exact        the node's own name;
  //  trans_prefix the same name with GE's "trans_" prefix added or removed;
  //  original     a pre-fusion name recorded in the node's _datadump_original_op_names;
  //  fused        node names embedded in a longer op name at word boundaries (fused kernels
  //               named after their members, e.g. "Conv_3Relu_4" -> Conv_3 and Relu_4).
  std::vector<NameMatch> match(std::string_view op_name) const;
  const std::vector<NodeRef>& nodes() const { return nodes_; }

 private:
  std::vector<NameMatch> lookup(std::string_view name, MatchKind kind) const;
  std::vector<NodeRef> nodes_;
  std::unordered_map<std::string, std::vector<size_t>> by_name_, by_original_;
};

// Where a node name may start/end inside a longer op name: at the string's ends, next to a
// separator, or at a change from digits to letters or lower to upper case.
bool starts_word(std::string_view s, size_t i);
bool ends_word(std::string_view s, size_t j);

}  // namespace perfsage::analyzers::graph
