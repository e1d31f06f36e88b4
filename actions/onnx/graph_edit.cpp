#include "actions/onnx/graph_edit.h"

#include <algorithm>
#include <cstring>

#include "proto/onnx_model.h"

namespace perfsage::actions::onnx {
namespace {

bool default_domain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

// Ops whose output has the rank and element type of their first input.
bool preserves_first_input(const std::string& op) {
  static const std::unordered_set<std::string> ops = {"Identity",      "Dropout",
                                                      "Relu",          "LeakyRelu",
                                                      "Elu",           "Selu",
                                                      "Sigmoid",       "HardSigmoid",
                                                      "HardSwish",     "Tanh",
                                                      "Softplus",      "Softsign",
                                                      "Clip",          "Neg",
                                                      "Abs",           "Sqrt",
                                                      "Exp",           "Log",
                                                      "Erf",           "Softmax",
                                                      "LogSoftmax",    "Add",
                                                      "Sub",           "Mul",
                                                      "Div",           "BatchNormalization",
                                                      "Conv",          "MaxPool",
                                                      "AveragePool",   "GlobalAveragePool",
                                                      "GlobalMaxPool", "LRN",
                                                      "Pad",           "InstanceNormalization",
                                                      "Mish",          "Gelu"};
  return ops.count(op) > 0;
}

// Names read by the nodes of a graph and, recursively, of the subgraphs they hold.
void collect_reads(const ox::GraphProto& g, std::unordered_set<std::string>& out) {
  for (const auto& n : g.node()) {
    for (const auto& in : n.input()) {
      if (!in.empty()) out.insert(in);
    }
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_reads(a.g(), out);
      for (const auto& sg : a.graphs()) collect_reads(sg, out);
    }
  }
}

int64_t element_count(const ox::TensorProto& t) {
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) return -1;
    n *= d;
  }
  return n;
}

}  // namespace

GraphEditor::GraphEditor(ox::ModelProto& model, std::vector<std::string> names)
    : graph_(model.mutable_graph()), names_(std::move(names)) {
  for (const auto& op : model.opset_import()) {
    if (default_domain(op.domain())) opset_ = op.version();
  }
  if (names_.size() != static_cast<size_t>(graph_->node_size()))
    names_ = onnx_model::node_names(*graph_);
  refresh();
}

void GraphEditor::set_node_name(int i, const std::string& name) {
  mutable_node(i).set_name(name);
  names_[i] = name;
}

bool GraphEditor::is_op(int i, const char* type) const {
  const auto& n = graph_->node(i);
  return n.op_type() == type && default_domain(n.domain());
}

int GraphEditor::producer(const std::string& value) const {
  auto it = producer_.find(value);
  return it == producer_.end() ? -1 : it->second;
}

const std::vector<int>& GraphEditor::consumers(const std::string& value) const {
  static const std::vector<int> none;
  auto it = consumers_.find(value);
  return it == consumers_.end() ? none : it->second;
}

bool GraphEditor::only_feeds(const std::string& value, int node) const {
  const auto& c = consumers(value);
  return c.size() == 1 && c[0] == node && !is_graph_output(value) && !used_in_subgraph(value);
}

bool GraphEditor::used(const std::string& value) const {
  return !consumers(value).empty() || is_graph_output(value) || used_in_subgraph(value);
}

bool GraphEditor::initializer_overridable(const std::string& value) const {
  return graph_inputs_.count(value) > 0;
}

const ox::TensorProto* GraphEditor::constant(const std::string& start,
                                             std::vector<int>* chain) const {
  std::string value = start;
  for (int hops = 0; hops <= node_count(); ++hops) {
    if (auto it = initializer_.find(value); it != initializer_.end()) {
      return initializer_overridable(value) ? nullptr : &graph_->initializer(it->second);
    }
    int p = producer(value);
    if (p < 0) return nullptr;
    if (is_op(p, "Identity")) {
      if (chain) chain->push_back(p);
      value = node(p).input(0);
      continue;
    }
    if (is_op(p, "Constant")) {
      const auto* a = find_attribute(node(p), "value");
      if (!a || !a->has_t()) return nullptr;
      if (chain) chain->push_back(p);
      return &a->t();
    }
    return nullptr;
  }
  return nullptr;
}

std::optional<int> GraphEditor::rank(const std::string& value) const {
  std::string v = value;
  for (int hops = 0; hops <= node_count(); ++hops) {
    if (auto it = value_info_.find(v); it != value_info_.end()) {
      const auto& type = it->second->type();
      if (type.has_tensor_type() && type.tensor_type().has_shape()) {
        return type.tensor_type().shape().dim_size();
      }
    }
    if (auto it = initializer_.find(v); it != initializer_.end()) {
      return graph_->initializer(it->second).dims_size();
    }
    int p = producer(v);
    if (p < 0) return std::nullopt;
    const auto& n = node(p);
    if (!default_domain(n.domain())) return std::nullopt;
    if (n.op_type() == "Flatten" || n.op_type() == "Gemm") return 2;
    if (n.op_type() == "Reshape" && n.input_size() > 1) {
      const auto* shape = constant(n.input(1));
      if (shape && shape->dims_size() == 1) return static_cast<int>(shape->dims(0));
      return std::nullopt;
    }
    if (n.op_type() == "MatMul" && n.input_size() == 2) {
      auto a = rank(n.input(0)), b = rank(n.input(1));
      if (a == 2 && b == 2) return 2;
      return std::nullopt;
    }
    if (!preserves_first_input(n.op_type()) || n.input_size() == 0) return std::nullopt;
    v = n.input(0);
  }
  return std::nullopt;
}

std::optional<int> GraphEditor::elem_type(const std::string& value) const {
  std::string v = value;
  for (int hops = 0; hops <= node_count(); ++hops) {
    if (auto it = value_info_.find(v); it != value_info_.end()) {
      const auto& type = it->second->type();
      if (type.has_tensor_type() && type.tensor_type().elem_type() != 0) {
        return type.tensor_type().elem_type();
      }
    }
    if (auto it = initializer_.find(v); it != initializer_.end()) {
      return graph_->initializer(it->second).data_type();
    }
    int p = producer(v);
    if (p < 0) return std::nullopt;
    const auto& n = node(p);
    if (!default_domain(n.domain())) return std::nullopt;
    if (n.op_type() == "Cast") {
      const auto* to = find_attribute(n, "to");
      return to ? std::optional<int>(static_cast<int>(to->i())) : std::nullopt;
    }
    if (n.op_type() == "Constant") {
      const auto* a = find_attribute(n, "value");
      return a && a->has_t() ? std::optional<int>(a->t().data_type()) : std::nullopt;
    }
    if (n.op_type() == "Shape") return ox::TensorProto::INT64;
    if ((!preserves_first_input(n.op_type()) && n.op_type() != "Flatten" &&
         n.op_type() != "Reshape" && n.op_type() != "Transpose" && n.op_type() != "MatMul" &&
         n.op_type() != "Gemm") ||
        n.input_size() == 0) {
      return std::nullopt;
    }
    v = n.input(0);
  }
  return std::nullopt;
}

bool GraphEditor::any_touched(const std::vector<int>& nodes) const {
  return std::any_of(nodes.begin(), nodes.end(), [&](int n) { return n >= 0 && touched(n); });
}

std::optional<std::string> GraphEditor::bypass(int node_index, const std::string& in,
                                               const std::string& out) {
  if (used_in_subgraph(out) || used_in_subgraph(in)) {
    return "a subgraph reads " + (used_in_subgraph(out) ? out : in) + " by name";
  }
  if (is_graph_output(out)) {
    // The graph output keeps its name: the value's producer writes it directly.
    int p = producer(in);
    if (p < 0 || is_graph_output(in) || is_graph_input(in)) {
      return "its input " + in + " and output " + out +
             " are both graph-level values; removing it would rename one";
    }
    auto& pn = mutable_node(p);
    for (auto& o : *pn.mutable_output()) {
      if (o == in) o = out;
    }
    touch(p);
    for (int c : consumers(in)) {
      if (c == node_index) continue;
      for (auto& i : *mutable_node(c).mutable_input()) {
        if (i == in) i = out;
      }
      touch(c);
    }
    forget(in);
  } else {
    for (int c : consumers(out)) {
      for (auto& i : *mutable_node(c).mutable_input()) {
        if (i == out) i = in;
      }
      touch(c);
    }
    forget(out);
  }
  remove_node(node_index);
  return std::nullopt;
}

void GraphEditor::remove_node(int node_index) {
  deleted_.insert(node_index);
  touch(node_index);
  for (const auto& o : node(node_index).output()) {
    if (!o.empty()) forget(o);
  }
  for (const auto& i : node(node_index).input()) {
    if (!i.empty()) forget(i);
  }
}

void GraphEditor::remove_dead_chain(const std::vector<int>& chain) {
  for (int n : chain) {
    for (const auto& i : node(n).input()) forget(i);
    for (const auto& o : node(n).output()) forget(o);
  }
}

std::string GraphEditor::add_initializer(ox::TensorProto tensor, const std::string& base) {
  std::string name = base;
  for (int k = 2; all_names_.count(name); ++k) name = base + "_" + std::to_string(k);
  all_names_.insert(name);
  tensor.set_name(name);
  *graph_->add_initializer() = std::move(tensor);
  return name;
}

void GraphEditor::compact() {
  // Deleted nodes go, the others keep their order (SwapElements moves each kept node forward).
  auto* nodes = graph_->mutable_node();
  int w = 0;
  for (int r = 0; r < nodes->size(); ++r) {
    if (deleted_.count(r)) continue;
    if (w != r) {
      nodes->SwapElements(w, r);
      std::swap(names_[w], names_[r]);
    }
    ++w;
  }
  nodes->DeleteSubrange(w, nodes->size() - w);
  names_.resize(w);
  deleted_.clear();
  refresh();
}

void GraphEditor::commit() {
  compact();
  // Identity/Constant nodes that only fed what was removed or replaced are dead now. Only nodes
  // that produce a value the edits let go of are candidates: nodes the input model already
  // left dangling stay as they were.
  for (bool again = true; again;) {
    again = false;
    for (int i = 0; i < node_count(); ++i) {
      if (!is_op(i, "Identity") && !is_op(i, "Constant")) continue;
      bool candidate = false, live = false;
      for (const auto& o : node(i).output()) {
        candidate = candidate || forgotten_.count(o) > 0;
        live = live || used(o);
      }
      if (!candidate || live) continue;
      for (const auto& in : node(i).input()) forgotten_.insert(in);
      deleted_.insert(i);
      again = true;
    }
    if (again) compact();
  }

  // Initializers and value_info that only removed nodes used are dropped.
  auto* inits = graph_->mutable_initializer();
  for (int i = inits->size() - 1; i >= 0; --i) {
    const auto& name = inits->Get(i).name();
    if (forgotten_.count(name) && !used(name) && !is_graph_input(name)) {
      inits->DeleteSubrange(i, 1);
    }
  }
  refresh();
  auto* infos = graph_->mutable_value_info();
  for (int i = infos->size() - 1; i >= 0; --i) {
    const auto& name = infos->Get(i).name();
    if (forgotten_.count(name) && producer(name) < 0 && !initializer_.count(name) &&
        !is_graph_input(name)) {
      infos->DeleteSubrange(i, 1);
    }
  }
  touched_.clear();
  deleted_.clear();
  forgotten_.clear();
  refresh();
}

void GraphEditor::refresh() {
  producer_.clear();
  consumers_.clear();
  initializer_.clear();
  value_info_.clear();
  graph_inputs_.clear();
  graph_outputs_.clear();
  subgraph_uses_.clear();
  all_names_.clear();
  for (int i = 0; i < graph_->node_size(); ++i) {
    const auto& n = graph_->node(i);
    for (const auto& o : n.output()) {
      if (o.empty()) continue;
      producer_[o] = i;
      all_names_.insert(o);
    }
    for (const auto& in : n.input()) {
      if (in.empty()) continue;
      consumers_[in].push_back(i);
      all_names_.insert(in);
    }
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_reads(a.g(), subgraph_uses_);
      for (const auto& sg : a.graphs()) collect_reads(sg, subgraph_uses_);
    }
  }
  for (int i = 0; i < graph_->initializer_size(); ++i) {
    initializer_[graph_->initializer(i).name()] = i;
    all_names_.insert(graph_->initializer(i).name());
  }
  for (const auto& vi : graph_->input()) {
    graph_inputs_.insert(vi.name());
    value_info_[vi.name()] = &vi;
  }
  for (const auto& vi : graph_->output()) {
    graph_outputs_.insert(vi.name());
    value_info_[vi.name()] = &vi;
  }
  for (const auto& vi : graph_->value_info()) {
    value_info_.emplace(vi.name(), &vi);
    all_names_.insert(vi.name());
  }
  for (const auto& n : graph_inputs_) all_names_.insert(n);
  for (const auto& n : graph_outputs_) all_names_.insert(n);
  for (const auto& n : subgraph_uses_) all_names_.insert(n);
}

std::optional<std::vector<double>> tensor_values(const ox::TensorProto& t) {
  if (t.data_location() == ox::TensorProto::EXTERNAL) return std::nullopt;
  int64_t n = element_count(t);
  if (n < 0) return std::nullopt;
  std::vector<double> out(static_cast<size_t>(n));
  if (t.data_type() == ox::TensorProto::FLOAT) {
    if (t.has_raw_data()) {
      if (t.raw_data().size() != static_cast<size_t>(n) * sizeof(float)) return std::nullopt;
      for (int64_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, t.raw_data().data() + i * sizeof(float), sizeof f);
        out[i] = f;
      }
    } else {
      if (t.float_data_size() != n) return std::nullopt;
      for (int64_t i = 0; i < n; ++i) out[i] = t.float_data(static_cast<int>(i));
    }
    return out;
  }
  if (t.data_type() == ox::TensorProto::DOUBLE) {
    if (t.has_raw_data()) {
      if (t.raw_data().size() != static_cast<size_t>(n) * sizeof(double)) return std::nullopt;
      std::memcpy(out.data(), t.raw_data().data(), t.raw_data().size());
    } else {
      if (t.double_data_size() != n) return std::nullopt;
      for (int64_t i = 0; i < n; ++i) out[i] = t.double_data(static_cast<int>(i));
    }
    return out;
  }
  return std::nullopt;
}

ox::TensorProto make_tensor(int32_t data_type, const std::vector<int64_t>& dims,
                            const std::vector<double>& values) {
  ox::TensorProto t;
  t.set_data_type(data_type);
  for (int64_t d : dims) t.add_dims(d);
  std::string raw;
  if (data_type == ox::TensorProto::FLOAT) {
    raw.resize(values.size() * sizeof(float));
    for (size_t i = 0; i < values.size(); ++i) {
      float f = static_cast<float>(values[i]);
      std::memcpy(raw.data() + i * sizeof(float), &f, sizeof f);
    }
  } else {
    raw.resize(values.size() * sizeof(double));
    std::memcpy(raw.data(), values.data(), raw.size());
  }
  t.set_raw_data(std::move(raw));
  return t;
}

const ox::AttributeProto* find_attribute(const ox::NodeProto& node, const char* name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t int_attribute(const ox::NodeProto& node, const char* name, int64_t fallback) {
  const auto* a = find_attribute(node, name);
  return a ? a->i() : fallback;
}

float float_attribute(const ox::NodeProto& node, const char* name, float fallback) {
  const auto* a = find_attribute(node, name);
  return a ? a->f() : fallback;
}

}  // namespace perfsage::actions::onnx
