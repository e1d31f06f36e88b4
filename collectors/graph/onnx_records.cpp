#include "collectors/graph/onnx_records.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <unordered_set>

#include "collectors/graph/json_builder.h"
#include "proto/onnx_model.h"

namespace perfsage::collectors::graph {
namespace {
namespace ox = ::perfsage::onnx;

std::string dtype_name(int32_t t) {
  if (ox::TensorProto_DataType_IsValid(t)) {
    return ox::TensorProto_DataType_Name(static_cast<ox::TensorProto_DataType>(t));
  }
  return std::to_string(t);
}

// Fixed element sizes in bytes; 0 for variable-size (STRING) and unknown types.

struct TypeInfo {
  std::optional<std::string> dtype, shape;
};

TypeInfo type_info(const ox::TypeProto& type) {
  TypeInfo info;
  if (!type.has_tensor_type()) return info;
  const auto& tt = type.tensor_type();
  if (tt.has_elem_type()) info.dtype = dtype_name(tt.elem_type());
  if (tt.has_shape()) {
    JsonArray a;
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_value())
        a.num(d.dim_value());
      else if (d.has_dim_param())
        a.str(d.dim_param());
      else
        a.raw("null");
    }
    info.shape = a.finish();
  }
  return info;
}

std::string dims_json(const ox::TensorProto& t) {
  JsonArray a;
  for (auto d : t.dims()) a.num(d);
  return a.finish();
}

std::optional<std::string> attribute_json(const ox::AttributeProto& a) {
  constexpr int kMaxItems = 16;
  constexpr size_t kMaxString = 256;
  using A = ox::AttributeProto;
  JsonArray arr;
  switch (a.type()) {
    case A::INT:
      return std::to_string(a.i());
    case A::FLOAT:
      return json_number(a.f());
    case A::STRING: {
      if (a.s().size() > kMaxString) return std::nullopt;
      std::string out;
      store::append_json_string(out, a.s());
      return out;
    }
    case A::INTS:
      if (a.ints_size() > kMaxItems) return std::nullopt;
      for (auto v : a.ints()) arr.num(v);
      return arr.finish();
    case A::FLOATS:
      if (a.floats_size() > kMaxItems) return std::nullopt;
      for (auto v : a.floats()) arr.raw(json_number(v));
      return arr.finish();
    case A::STRINGS:
      if (a.strings_size() > kMaxItems) return std::nullopt;
      for (const auto& v : a.strings()) {
        if (v.size() > kMaxString) return std::nullopt;
        arr.str(v);
      }
      return arr.finish();
    case A::TENSOR: {  // a constant: its type and dims, never its data
      JsonObject o;
      o.str("dtype", dtype_name(a.t().data_type()));
      o.raw("dims", dims_json(a.t()));
      return o.finish();
    }
    case A::GRAPH:
      return "\"<graph>\"";
    default:
      return std::nullopt;
  }
}

class GraphEmitter {
 public:
  explicit GraphEmitter(CollectContext& ctx) : ctx_(ctx) {}

  void emit(const ox::GraphProto& g, const std::string& name, bool outer_scope_allowed) {
    std::unordered_map<std::string, TypeInfo> types;
    std::unordered_set<std::string> graph_sources;  // graph inputs and initializers
    std::unordered_set<std::string> initializers;
    for (const auto& t : g.initializer()) initializers.insert(t.name());
    for (const auto& vi : g.input()) types[vi.name()] = type_info(vi.type());
    for (const auto& vi : g.output()) types[vi.name()] = type_info(vi.type());
    for (const auto& vi : g.value_info()) types[vi.name()] = type_info(vi.type());
    for (const auto& vi : g.input()) graph_sources.insert(vi.name());

    for (int i = 0; i < g.initializer_size(); ++i) {
      const auto& t = g.initializer(i);
      graph_sources.insert(t.name());
      types[t.name()] = TypeInfo{dtype_name(t.data_type()), dims_json(t)};
      add_tensor(name, "", "initializer", i, t.name(), types[t.name()], onnx_model::tensor_bytes(t));
    }
    int input_idx = 0;
    for (const auto& vi : g.input()) {
      if (initializers.count(vi.name())) continue;  // IR < 4 lists initializers as inputs too
      add_tensor(name, "", "graph_input", input_idx++, vi.name(), types[vi.name()], {});
    }
    for (int i = 0; i < g.output_size(); ++i) {
      add_tensor(name, "", "graph_output", i, g.output(i).name(), types[g.output(i).name()], {});
    }

    std::vector<std::string> names = onnx_model::node_names(g);
    std::unordered_map<std::string, std::pair<std::string, int>> producer;
    for (int i = 0; i < g.node_size(); ++i) {
      const auto& n = g.node(i);
      for (int o = 0; o < n.output_size(); ++o) {
        if (!n.output(o).empty()) producer[n.output(o)] = {names[i], o};
      }
    }

    for (int i = 0; i < g.node_size(); ++i) {
      emit_node(g.node(i), names[i], name, types, producer, graph_sources, outer_scope_allowed);
    }
    for (int i = 0; i < g.output_size(); ++i) {
      auto it = producer.find(g.output(i).name());
      if (it == producer.end()) continue;  // an input or initializer passed straight through
      store::GraphEdge e{name, it->second.first, it->second.second, g.output(i).name(), {}, false};
      ctx_.out().add(e);
      ctx_.record();
    }
  }

 private:
  void add_tensor(const std::string& graph, const std::string& node, const char* dir, int idx,
                  const std::string& tensor, const TypeInfo& info, store::OptInt bytes) {
    store::TensorDesc t;
    t.graph = graph;
    t.node = node;
    t.direction = dir;
    t.idx = idx;
    t.name = tensor;
    t.dtype = info.dtype;
    t.shape = info.shape;
    t.bytes = bytes;
    ctx_.out().add(t);
    ctx_.record();
  }

  void emit_node(const ox::NodeProto& n, const std::string& node_name, const std::string& graph,
                 std::unordered_map<std::string, TypeInfo>& types,
                 const std::unordered_map<std::string, std::pair<std::string, int>>& producer,
                 const std::unordered_set<std::string>& graph_sources, bool outer_scope_allowed) {
    store::GraphNode rec;
    rec.graph = graph;
    rec.name = node_name;
    rec.type = n.op_type();
    rec.source = "onnx";
    JsonObject attrs;
    if (!n.domain().empty()) attrs.str("domain", n.domain());
    for (const auto& a : n.attribute()) {
      if (auto j = attribute_json(a)) attrs.raw(a.name(), *j);
    }
    rec.attrs = attrs.finish();
    ctx_.out().add(rec);
    ctx_.record();

    for (int i = 0; i < n.input_size(); ++i) {
      const std::string& in = n.input(i);
      if (in.empty()) continue;  // an omitted optional input
      add_tensor(graph, node_name, "input", i, in, types[in], {});
      store::GraphEdge e;
      e.graph = graph;
      e.dst = node_name;
      e.dst_index = i;
      if (auto it = producer.find(in); it != producer.end()) {
        e.src = it->second.first;
        e.src_index = it->second.second;
      } else if (graph_sources.count(in) || outer_scope_allowed) {
        e.src = in;  // a graph input, an initializer or (in a subgraph) an outer-scope value
      } else {
        ctx_.skip("node input produced by no node, graph input or initializer",
                  "graph " + graph + " node " + node_name + " input " + std::to_string(i) + " \"" +
                      in + "\"");
        continue;
      }
      ctx_.out().add(e);
      ctx_.record();
    }
    for (int o = 0; o < n.output_size(); ++o) {
      if (!n.output(o).empty())
        add_tensor(graph, node_name, "output", o, n.output(o), types[n.output(o)], {});
    }
    for (const auto& a : n.attribute()) {
      if (a.has_g()) subgraph(a.g(), graph, node_name, a.name());
      for (int k = 0; k < a.graphs_size(); ++k) {
        subgraph(a.graphs(k), graph, node_name, a.name() + "[" + std::to_string(k) + "]");
      }
    }
  }

  void subgraph(const ox::GraphProto& g, const std::string& parent, const std::string& node,
                const std::string& attr) {
    std::string name = parent + "/" + node + "/" + attr;
    for (auto [key, value] : {std::pair{"parent_graph", parent}, std::pair{"parent_node", node}}) {
      store::GraphAttr a{name, "structure", key, value};
      ctx_.out().add(a);
      ctx_.record();
    }
    emit(g, name, true);
  }

  CollectContext& ctx_;
};

void model_attr(CollectContext& ctx, const std::string& scope, const std::string& key,
                std::string value) {
  store::GraphAttr a{"", scope, key, std::move(value)};
  ctx.out().add(a);
  ctx.record();
}
}  // namespace



void emit_onnx_model(const ox::ModelProto& model, CollectContext& ctx) {
  std::string main = model.graph().name().empty() ? "main" : model.graph().name();
  store::GraphAttr root{main, "structure", "root", "true"};
  ctx.out().add(root);
  ctx.record();
  GraphEmitter(ctx).emit(model.graph(), main, false);

  if (model.has_ir_version())
    model_attr(ctx, "model", "ir_version", std::to_string(model.ir_version()));
  if (!model.producer_name().empty())
    model_attr(ctx, "model", "producer_name", model.producer_name());
  if (!model.producer_version().empty()) {
    model_attr(ctx, "model", "producer_version", model.producer_version());
  }
  if (!model.domain().empty()) model_attr(ctx, "model", "domain", model.domain());
  if (model.has_model_version()) {
    model_attr(ctx, "model", "model_version", std::to_string(model.model_version()));
  }
  for (const auto& op : model.opset_import()) {
    bool default_domain = op.domain().empty() || op.domain() == "ai.onnx";
    model_attr(ctx, "model", default_domain ? "opset" : "opset:" + op.domain(),
               std::to_string(op.version()));
  }
  for (const auto& kv : model.metadata_props()) model_attr(ctx, "metadata", kv.key(), kv.value());
  std::unordered_set<std::string> external;
  for (const auto& t : model.graph().initializer()) {
    for (const auto& kv : t.external_data()) {
      if (kv.key() == "location") external.insert(kv.value());
    }
  }
  if (!external.empty()) {
    std::vector<std::string> files(external.begin(), external.end());
    std::sort(files.begin(), files.end());
    model_attr(ctx, "model", "external_data", store::json_string_array(files));
  }
}

}  // namespace perfsage::collectors::graph
