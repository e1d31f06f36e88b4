#include "analyzers/patterns/shape_fusion.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>

#include "analyzers/patterns/matcher.h"

namespace perfsage::analyzers::patterns {
namespace {

// A shape stored as a JSON array whose every dimension is a known non-negative integer; a
// symbolic ("batch"), null or negative (GE -1/-2: unknown) dimension makes it dynamic.
std::optional<std::vector<int64_t>> static_shape(const std::string& json) {
  if (json.size() < 2 || json.front() != '[' || json.back() != ']') return std::nullopt;
  std::vector<int64_t> dims;
  size_t p = 1;
  const size_t end = json.size() - 1;
  while (p < end) {
    while (p < end && (json[p] == ' ' || json[p] == ',')) ++p;
    if (p == end) break;
    int64_t v = 0;
    auto [next, ec] = std::from_chars(json.data() + p, json.data() + end, v);
    if (ec != std::errc() || v < 0) return std::nullopt;
    dims.push_back(v);
    p = static_cast<size_t>(next - json.data());
  }
  return dims;
}

std::string shape_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

const std::string& at_or_empty(const std::vector<std::string>& v, size_t i) {
  static const std::string none;
  return i < v.size() ? v[i] : none;
}

bool merged(const OpGraph& g, const std::string& pass, const std::vector<size_t>& nodes) {
  Pattern p;
  p.pass = pass;
  return merged_members(g, p, nodes);
}

// The bias shape [N] or [1,..,1,N] of a product whose last dimension is N, of no higher rank.
bool bias_of(const std::vector<int64_t>& bias, const std::vector<int64_t>& product) {
  if (bias.empty() || product.empty() || bias.size() > product.size()) return false;
  if (bias.back() != product.back()) return false;
  return std::all_of(bias.begin(), bias.end() - 1, [](int64_t d) { return d == 1; });
}

}  // namespace

bool elementwise_op(const std::string& type) {
  static const std::set<std::string> ops = {"Relu", "Pow",       "Add",     "Sub",  "Mul",
                                            "Div",  "Abs",       "Ceil",    "Log",  "Sqrt",
                                            "Exp",  "LeakyRelu", "RealDiv", "Adds", "Muls"};
  return ops.count(type) > 0;
}

std::vector<ShapeFusion> find_matmul_bias_adds(const OpGraph& g) {
  static const std::set<std::string> matmuls = {"MatMul",      "MatMulV2",      "MatMulV3",
                                                "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"};
  static const std::set<std::string> two_d = {"MatMulV2", "MatMulV3"};  // and GE's MatMul
  std::vector<ShapeFusion> out;
  const bool ge = g.format == "ge";
  for (size_t m = 0; m < g.nodes.size(); ++m) {
    const OpNode& mm = g.nodes[m];
    if (!matmuls.count(mm.type) || mm.graph_output || g.succ[m].size() != 1) continue;
    const size_t a = g.succ[m][0];
    const OpNode& add = g.nodes[a];
    if ((add.type != "Add" && add.type != "BiasAdd") || add.in_src.size() != 2) continue;
    if ((add.in_src[0] == mm.name) == (add.in_src[1] == mm.name)) continue;  // x+x or neither
    const size_t side = add.in_src[0] == mm.name ? 0 : 1, other = 1 - side;
    auto product = static_shape(mm.out_shape);
    auto bias = static_shape(at_or_empty(add.in_shapes, other));
    if (!product || !bias || product->size() < 2) continue;
    // A GE build graph records shapes in the runtime format: only ND shapes are the logical ones.
    if (ge && (format_family(mm.out_format) != "ND" ||
               format_family(at_or_empty(add.in_formats, other)) != "ND"))
      continue;
    if ((two_d.count(mm.type) || (ge && mm.type == "MatMul")) && product->size() != 2) continue;
    if (!bias_of(*bias, *product)) continue;
    ShapeFusion f{
        "matmul_bias_add", "graph_fusion", "MatMulBiasAddFusionPass", {m, a}, {m}, "", "", false};
    f.detail = shape_text(*product) + " + bias " + shape_text(*bias);
    const std::string& dtype = !mm.out_dtype.empty() ? mm.out_dtype : add.in_dtype;
    if (!dtype.empty()) f.detail += ", " + dtype;
    f.fused = merged(g, f.pass, f.nodes);
    // The onnx_rewrite pass fuse_matmul_add: 2-D inputs, a constant weight and bias.
    if (g.format == "onnx" && mm.type == "MatMul" && mm.in_src.size() == 2) {
      auto x = static_shape(at_or_empty(mm.in_shapes, 0));
      auto w = static_shape(at_or_empty(mm.in_shapes, 1));
      if (x && w && x->size() == 2 && w->size() == 2 && g.initializers.count(mm.in_src[1]) &&
          g.initializers.count(add.in_src[other]))
        f.rewrite = "fuse_matmul_add";
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<ShapeFusion> find_eltwise_chains(const OpGraph& g,
                                             const std::vector<ShapeFusion>& bias_adds) {
  constexpr size_t kMaxFused = 6;  // TbeEltwiseFusionPass: at most six ops per kernel
  std::set<size_t> taken;
  for (const auto& f : bias_adds) taken.insert(f.nodes.back());
  // A node in one UB fusion scope with a non-element-wise op runs inside that op's kernel.
  std::map<int64_t, bool> foreign_scope;
  for (const auto& n : g.nodes)
    if (n.fusion_scope >= 0 && !elementwise_op(n.type)) foreign_scope[n.fusion_scope] = true;
  auto member = [&](size_t i) {
    const OpNode& n = g.nodes[i];
    if (!elementwise_op(n.type) || taken.count(i) || foreign_scope.count(n.fusion_scope))
      return false;
    if (!static_shape(n.out_shape) || n.in_shapes.empty()) return false;
    return std::all_of(n.in_shapes.begin(), n.in_shapes.end(),
                       [](const std::string& s) { return static_shape(s).has_value(); });
  };
  std::vector<bool> is_member(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) is_member[i] = member(i);
  // next[p] = n when p's only reader is n and both are members; of several such p feeding one
  // n, the first in graph order links (the others end their chains).
  std::vector<size_t> next(g.nodes.size(), SIZE_MAX), prev(g.nodes.size(), SIZE_MAX);
  std::vector<size_t> by_order(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) by_order[i] = i;
  std::sort(by_order.begin(), by_order.end(),
            [&](size_t a, size_t b) { return g.nodes[a].order < g.nodes[b].order; });
  for (size_t p : by_order) {
    if (!is_member[p] || g.nodes[p].graph_output || g.succ[p].size() != 1) continue;
    size_t n = g.succ[p][0];
    if (!is_member[n] || prev[n] != SIZE_MAX) continue;
    next[p] = n;
    prev[n] = p;
  }
  std::vector<ShapeFusion> out;
  for (size_t head : by_order) {
    if (!is_member[head] || prev[head] != SIZE_MAX || next[head] == SIZE_MAX) continue;
    std::vector<size_t> chain;
    for (size_t n = head; n != SIZE_MAX; n = next[n]) chain.push_back(n);
    for (size_t start = 0; start + 1 < chain.size(); start += kMaxFused) {
      std::vector<size_t> run(
          chain.begin() + static_cast<std::ptrdiff_t>(start),
          chain.begin() + static_cast<std::ptrdiff_t>(std::min(chain.size(), start + kMaxFused)));
      if (run.size() < 2) break;
      ShapeFusion f{"eltwise_chain", "ub_eltwise", "TbeEltwiseFusionPass", run, {}, "", "", false};
      f.kept.assign(run.begin(), run.end() - 1);
      f.detail = shape_text(*static_shape(g.nodes[run.back()].out_shape));
      const std::string& dtype = g.nodes[run.back()].out_dtype;
      if (!dtype.empty()) f.detail += ", " + dtype;
      f.fused = merged(g, f.pass, run);
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace perfsage::analyzers::patterns
