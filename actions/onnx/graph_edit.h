// Editing the main graph of an ONNX model in place for the rewrite passes: an index of who
// produces and who consumes each value, constant and type lookups, and the edits the passes
// share (bypassing a node, adding initializers, removing nodes). Edits are collected during a
// round and made permanent by commit(), which drops deleted nodes in order and forgets the
// value_info and initializers that only the removed nodes used; refresh() rebuilds the index.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "perfsage/onnx/onnx.pb.h"

namespace perfsage::actions::onnx {

namespace ox = perfsage::onnx;

class GraphEditor {
 public:
  // `display_names` are the node names findings use (onnx_model::node_names, the
  // names the ONNX collector stored); empty means compute them from the model.
  explicit GraphEditor(ox::ModelProto& model, std::vector<std::string> display_names = {});

  ox::GraphProto& graph() { return *graph_; }
  const ox::NodeProto& node(int i) const { return graph_->node(i); }
  ox::NodeProto& mutable_node(int i) { return *graph_->mutable_node(i); }
  int node_count() const { return graph_->node_size(); }
  const std::string& node_name(int i) const { return names_[i]; }
  // Names node `i` (in the model and for findings).
  void set_node_name(int i, const std::string& name);
  const std::vector<std::string>& node_names() const { return names_; }
  // The default-domain opset the model imports (0 when it imports none).
  int64_t opset() const { return opset_; }

  // True for a node of the default ONNX domain with this op type.
  bool is_op(int i, const char* type) const;
  int producer(const std::string& value) const;                       // node index, -1 for none
  const std::vector<int>& consumers(const std::string& value) const;  // node indices, may repeat
  bool is_graph_input(const std::string& value) const { return graph_inputs_.count(value) > 0; }
  bool is_graph_output(const std::string& value) const { return graph_outputs_.count(value) > 0; }
  // Referenced from inside a subgraph (If/Loop/Scan bodies read outer values by name).
  bool used_in_subgraph(const std::string& value) const { return subgraph_uses_.count(value) > 0; }
  // Consumed by exactly this one node input and nothing else (not a graph output either).
  bool only_feeds(const std::string& value, int node) const;
  // Used at all: consumed by a node, a subgraph or the graph's outputs.
  bool used(const std::string& value) const;

  // The constant a value holds: an initializer that is not also a graph input (IR < 4 lets
  // inputs override those), or a Constant node's `value`, seen through Identity nodes.
  // `chain` receives the Identity/Constant nodes passed through.
  const ox::TensorProto* constant(const std::string& value,
                                  std::vector<int>* chain = nullptr) const;
  std::optional<int> rank(const std::string& value) const;
  std::optional<int> elem_type(const std::string& value) const;

  // Rounds: a pass edits nodes not yet touched in this round, then commits and refreshes.
  bool touched(int node) const { return touched_.count(node) > 0; }
  void touch(int node) { touched_.insert(node); }
  bool any_touched(const std::vector<int>& nodes) const;

  // Removes `node`, whose output `out` equals its input `in`: consumers of `out` read `in`
  // instead, or, when `out` is a graph output, `in`'s producer writes `out` directly. Returns
  // the reason when that cannot be done exactly (nothing is changed then).
  std::optional<std::string> bypass(int node, const std::string& in, const std::string& out);
  void remove_node(int node);
  // Removes the Identity/Constant nodes of a constant chain that no longer feed anything.
  void remove_dead_chain(const std::vector<int>& chain);
  // Adds an initializer under a name derived from `base` that no value uses yet; returns it.
  std::string add_initializer(ox::TensorProto tensor, const std::string& base);
  // A value name that is now unused by the edits (its value_info and, for initializers, the
  // tensor itself are dropped at commit when nothing uses it any more).
  void forget(const std::string& value) { forgotten_.insert(value); }

  // Makes the round's edits permanent and rebuilds the index.
  void commit();

 private:
  void refresh();
  void compact();  // drops the deleted nodes, keeping the others' order, and refreshes
  bool initializer_overridable(const std::string& value) const;

  ox::GraphProto* graph_;
  int64_t opset_ = 0;
  std::vector<std::string> names_;
  std::unordered_map<std::string, int> producer_;
  std::unordered_map<std::string, std::vector<int>> consumers_;
  std::unordered_map<std::string, int> initializer_;
  std::unordered_map<std::string, const ox::ValueInfoProto*> value_info_;
  std::unordered_set<std::string> graph_inputs_, graph_outputs_, subgraph_uses_, all_names_;
  std::set<int> touched_, deleted_;
  std::unordered_set<std::string> forgotten_;
};

// Float and double tensors as doubles (raw or typed data); nullopt for other types and for
// tensors whose data lives in an external file.
std::optional<std::vector<double>> tensor_values(const ox::TensorProto& tensor);
// A tensor of `data_type` (FLOAT or DOUBLE) with these dims and values, stored as raw data.
ox::TensorProto make_tensor(int32_t data_type, const std::vector<int64_t>& dims,
                            const std::vector<double>& values);

const ox::AttributeProto* find_attribute(const ox::NodeProto& node, const char* name);
int64_t int_attribute(const ox::NodeProto& node, const char* name, int64_t fallback);
float float_attribute(const ox::NodeProto& node, const char* name, float fallback);

}  // namespace perfsage::actions::onnx
