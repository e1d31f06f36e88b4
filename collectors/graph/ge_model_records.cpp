#include "collectors/graph/ge_model_records.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "collectors/graph/ge_attr_value.h"
#include "collectors/graph/json_builder.h"

namespace perfsage::collectors::graph {
namespace {
using ge::proto::GraphDef;
using ge::proto::OpDef;
using ge::proto::TensorDescriptor;

// Attributes stored in their own columns, or bulky bookkeeping that says nothing about
// performance; everything else small goes into the node's attrs JSON.
const std::unordered_set<std::string>& excluded_attrs() {
  static const std::unordered_set<std::string> s = {"_ge_attr_op_kernel_lib_name",
                                                    "_lxfusion_op_kernel_lib_name",
                                                    "_lxfusion_engine_name",
                                                    "tvm_blockdim",
                                                    "fusion_scope",
                                                    "pass_name",
                                                    "pass_name_ub",
                                                    "_fusion_pass_name",
                                                    "_datadump_original_op_names",
                                                    "_input_name_key",
                                                    "_input_name_value",
                                                    "_output_name_key",
                                                    "_output_name_value",
                                                    "_ir_attr_names",
                                                    "_ir_inputs_key",
                                                    "_ir_inputs_value",
                                                    "_ir_outputs_key",
                                                    "_ir_outputs_value",
                                                    "INPUT_IS_VAR",
                                                    "OUTPUT_IS_VAR",
                                                    "compile_info_json",
                                                    "compile_info_key",
                                                    "_op_slice_info",
                                                    "tvm_metadata"};
  return s;
}

// The pass that produced a fused op; UB fusion and graph fusion record it under different keys.
std::optional<std::string> pass_name(const AttrMap& a) {
  for (const char* key : {"pass_name", "pass_name_ub", "_fusion_pass_name"}) {
    if (auto v = attr_s(a, key); v && !v->empty()) return v;
  }
  return std::nullopt;
}

std::string shape_json(const TensorDescriptor& td) {
  JsonArray a;
  for (auto d : td.shape().dim()) a.num(d);
  return a.finish();
}

std::string node_attrs_json(const OpDef& op) {
  std::vector<const ge::proto::AttrEntry*> entries;
  entries.reserve(op.attr_size());
  for (const auto& e : op.attr()) {
    if (!excluded_attrs().count(e.key())) entries.push_back(&e);
  }
  // Sorted and unique by key (the last entry wins, as in a map), whatever the dump's order.
  std::stable_sort(entries.begin(), entries.end(),
                   [](auto* a, auto* b) { return a->key() < b->key(); });
  JsonObject o;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i + 1 < entries.size() && entries[i + 1]->key() == entries[i]->key()) continue;
    if (auto j = attr_json(entries[i]->value())) o.raw(entries[i]->key(), *j);
  }
  if (op.id() != 0) o.num("id", op.id());
  if (op.stream_id() != 0) o.num("stream_id", op.stream_id());
  if (op.subgraph_name_size() > 0) {
    JsonArray subs;
    for (const auto& s : op.subgraph_name()) subs.str(s);
    o.raw("subgraph_name", subs.finish());
  }
  return o.finish();
}

// An `input` entry: "src:idx" (idx -1 = control), "^src" (control), "" (unconnected slot).
struct InputRef {
  std::string_view src;
  int64_t index = 0;
  bool control = false;
};

std::optional<InputRef> parse_input(std::string_view s) {
  if (s.size() > 1 && s[0] == '^') return InputRef{s.substr(1), -1, true};
  auto colon = s.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  InputRef r{s.substr(0, colon)};
  auto digits = s.substr(colon + 1);
  auto res = std::from_chars(digits.data(), digits.data() + digits.size(), r.index);
  if (res.ec != std::errc() || res.ptr != digits.data() + digits.size() || r.index < -1) {
    return std::nullopt;
  }
  r.control = r.index == -1;
  return r;
}

void emit_tensors(const std::string& graph, const OpDef& op, CollectContext& ctx) {
  auto emit = [&](const TensorDescriptor& td, const char* dir, int idx) {
    store::TensorDesc t;
    t.graph = graph;
    t.node = op.name();
    t.direction = dir;
    t.idx = idx;
    if (!td.name().empty()) t.name = td.name();
    t.dtype = ge_dtype_name(td.dtype());
    if (!td.layout().empty()) t.format = td.layout();
    if (auto of = attr_s(td.attr(), "origin_format")) t.origin_format = *of;
    t.shape = shape_json(td);
    if (td.size() > 0) t.bytes = td.size();
    ctx.out().add(t);
    ctx.record();
  };
  for (int i = 0; i < op.input_desc_size(); ++i) emit(op.input_desc(i), "input", i);
  for (int i = 0; i < op.output_desc_size(); ++i) emit(op.output_desc(i), "output", i);
}

void emit_edges(const std::string& graph, const OpDef& op, CollectContext& ctx) {
  for (int i = 0; i < op.input_size(); ++i) {
    const std::string& in = op.input(i);
    if (in.empty()) continue;  // an unconnected input slot (Data, Variable)
    auto ref = parse_input(in);
    if (!ref) {
      ctx.skip("malformed input reference (expected \"<op>:<index>\" or \"^<op>\")",
               "graph " + graph + " op " + op.name() + " input " + std::to_string(i) + " \"" + in +
                   "\"");
      continue;
    }
    store::GraphEdge e;
    e.graph = graph;
    e.src = std::string(ref->src);
    e.dst = op.name();
    e.control = ref->control;
    if (!ref->control) {
      e.src_index = ref->index;
      e.dst_index = i;
    }
    ctx.out().add(e);
    ctx.record();
  }
}

void add_attr(CollectContext& ctx, const std::string& graph, const std::string& scope,
              const std::string& key, std::string value) {
  store::GraphAttr a{graph, scope, key, std::move(value)};
  ctx.out().add(a);
  ctx.record();
}

// Entries sorted by key, the last of equal keys kept (map semantics), for stable output.
std::vector<const ge::proto::AttrEntry*> sorted_entries(const AttrMap& attrs) {
  std::vector<const ge::proto::AttrEntry*> out;
  for (const auto& e : attrs) out.push_back(&e);
  std::stable_sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->key() < b->key(); });
  std::vector<const ge::proto::AttrEntry*> unique;
  for (size_t i = 0; i < out.size(); ++i) {
    if (i + 1 < out.size() && out[i + 1]->key() == out[i]->key()) continue;
    unique.push_back(out[i]);
  }
  return unique;
}

// Graph attributes: NamedAttrs values (GlobalOptions, SessionOptions, GraphOptions) are
// flattened so each GE option is one row whose scope names the option set.
void emit_graph_attrs(const std::string& graph, const AttrMap& attrs, const char* plain_scope,
                      CollectContext& ctx) {
  for (const auto* e : sorted_entries(attrs)) {
    const auto& v = e->value();
    if (v.value_case() == ge::proto::AttrDef::kFunc) {
      for (const auto* inner : sorted_entries(v.func().attr())) {
        add_attr(ctx, graph, e->key(), inner->key(), attr_text(inner->value()));
      }
    } else {
      add_attr(ctx, graph, plain_scope, e->key(), attr_text(v));
    }
  }
}

struct Owner {
  std::string graph, op;
  bool unknown_shape = false;
};

bool name_says_unknown(const std::string& graph) {
  return graph.find("_unknow") != std::string::npos;  // GE's spelling: sub_N_unknow
}
}  // namespace

void emit_ge_model(const std::vector<const ge::proto::ModelDef*>& parts, const std::string& source,
                   CollectContext& ctx) {
  std::vector<const GraphDef*> graphs;
  for (const auto* part : parts) {
    for (const auto& g : part->graph()) graphs.push_back(&g);
  }
  std::unordered_set<std::string> graph_names;
  for (const auto* g : graphs) graph_names.insert(g->name());

  // Resolve subgraph references: which op owns which graph, and whether it runs unknown-shape.
  std::unordered_map<std::string, Owner> owner;
  for (const auto* gp : graphs) {
    const GraphDef& g = *gp;
    for (const auto& op : g.op()) {
      for (const auto& sub : op.subgraph_name()) {
        if (sub.empty()) continue;
        if (!graph_names.count(sub)) {
          ctx.warn("graph " + g.name() + " op " + op.name() + " references subgraph " + sub +
                   ", which is not in this dump");
          continue;
        }
        bool unknown = attr_b(op.attr(), "_is_unknown_shape").value_or(false);
        owner.emplace(sub, Owner{g.name(), op.name(), unknown});
      }
    }
  }

  for (size_t gi = 0; gi < graphs.size(); ++gi) {
    const GraphDef& g = *graphs[gi];
    const std::string& graph = g.name();
    auto own = owner.find(graph);
    bool graph_unknown =
        name_says_unknown(graph) || (own != owner.end() && own->second.unknown_shape);
    if (gi == 0) add_attr(ctx, graph, "structure", "root", "true");
    if (own != owner.end()) {
      add_attr(ctx, graph, "structure", "parent_graph", own->second.graph);
      add_attr(ctx, graph, "structure", "parent_node", own->second.op);
    }
    if (graph_unknown) add_attr(ctx, graph, "structure", "unknown_shape", "true");
    emit_graph_attrs(graph, g.attr(), "graph", ctx);

    for (const OpDef& op : g.op()) {
      const auto& a = op.attr();
      store::GraphNode n;
      n.graph = graph;
      n.name = op.name();
      n.type = op.type();
      // Kernel library and engine from the attributes GE sets after engine placement;
      // _engine_type is not used: it names AI Core for ops that run on AI CPU.
      n.kernel_lib = attr_s(a, "_ge_attr_op_kernel_lib_name");
      if (!n.kernel_lib || n.kernel_lib->empty()) {
        n.kernel_lib = attr_s(a, "_lxfusion_op_kernel_lib_name");
      }
      n.engine = attr_s(a, "_lxfusion_engine_name");
      if (n.kernel_lib && n.kernel_lib->empty()) n.kernel_lib.reset();
      if (n.engine && n.engine->empty()) n.engine.reset();
      n.block_dim = attr_i(a, "tvm_blockdim");
      n.fusion_scope = attr_i(a, "fusion_scope");
      n.pass_name = pass_name(a);
      if (auto names = attr_list_s(a, "_datadump_original_op_names")) {
        JsonArray arr;
        for (const auto& s : *names) arr.str(s);
        n.original_ops = arr.finish();
      }
      auto own_unknown = attr_b(a, "_is_unknown_shape");
      auto owner_unknown = attr_b(a, "OwnerGraphIsUnknown");
      if (graph_unknown || own_unknown.value_or(false) || owner_unknown.value_or(false)) {
        n.unknown_shape = 1;
      } else if (own_unknown || owner_unknown) {
        n.unknown_shape = 0;
      }
      n.source = source;
      n.attrs = node_attrs_json(op);
      ctx.out().add(n);
      ctx.record();
      emit_edges(graph, op, ctx);
      emit_tensors(graph, op, ctx);
    }
  }
  for (const auto* part : parts) {
    if (!part->name().empty()) add_attr(ctx, "", "model", "name", part->name());
    emit_graph_attrs("", part->attr(), "model", ctx);
  }
}

}  // namespace perfsage::collectors::graph
