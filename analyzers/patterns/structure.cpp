#include "analyzers/patterns/structure.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>

namespace perfsage::analyzers::patterns {
namespace {

// The integer or integer list stored under `key` in a node's attribute JSON (written by the
// graph collectors: compact, one level for scalars and lists of numbers).
std::optional<std::vector<int64_t>> attr_ints(const std::string& json, const std::string& key) {
  std::string needle = "\"" + key + "\":";
  size_t p = json.find(needle);
  if (p == std::string::npos) return std::nullopt;
  p += needle.size();
  while (p < json.size() && json[p] == ' ') ++p;
  bool list = p < json.size() && json[p] == '[';
  if (list) ++p;
  std::vector<int64_t> out;
  while (p < json.size()) {
    while (p < json.size() && (json[p] == ' ' || json[p] == ',')) ++p;
    if (p < json.size() && json[p] == ']') break;
    int64_t v = 0;
    auto [end, ec] = std::from_chars(json.data() + p, json.data() + json.size(), v);
    if (ec != std::errc()) return std::nullopt;
    out.push_back(v);
    p = static_cast<size_t>(end - json.data());
    if (!list) break;
  }
  return out;
}

// One spelling for element types: ONNX (FLOAT16, BFLOAT16) and GE (FLOAT16, BF16, DT_...).
std::string type_name(std::string t) {
  for (auto& c : t) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (t.rfind("DT_", 0) == 0) t = t.substr(3);
  if (t == "BF16") t = "BFLOAT16";
  if (t == "HALF") t = "FLOAT16";
  return t;
}

// ONNX TensorProto.DataType of Cast's `to`.
std::string onnx_type(int64_t v) {
  static const std::unordered_map<int64_t, std::string> names = {
      {1, "FLOAT"},   {2, "UINT8"},   {3, "INT8"},     {4, "UINT16"},   {5, "INT16"},
      {6, "INT32"},   {7, "INT64"},   {9, "BOOL"},     {10, "FLOAT16"}, {11, "DOUBLE"},
      {12, "UINT32"}, {13, "UINT64"}, {16, "BFLOAT16"}};
  auto it = names.find(v);
  return it == names.end() ? std::string() : it->second;
}

// Whether every value of `from` is held exactly by `to` (float->double, int32->int64, ...).
bool holds_every_value(const std::string& from, const std::string& to) {
  static const std::set<std::pair<std::string, std::string>> wider = {
      {"FLOAT16", "FLOAT"}, {"FLOAT16", "DOUBLE"}, {"BFLOAT16", "FLOAT"}, {"BFLOAT16", "DOUBLE"},
      {"FLOAT", "DOUBLE"},  {"INT8", "INT16"},     {"INT8", "INT32"},     {"INT8", "INT64"},
      {"INT16", "INT32"},   {"INT16", "INT64"},    {"INT32", "INT64"},    {"UINT8", "INT16"},
      {"UINT8", "INT32"},   {"UINT8", "INT64"},    {"UINT8", "UINT16"},   {"UINT8", "UINT32"},
      {"UINT16", "INT32"},  {"UINT16", "INT64"},   {"UINT16", "UINT32"},  {"UINT32", "INT64"},
      {"BOOL", "INT32"},    {"BOOL", "INT64"},     {"BOOL", "FLOAT"}};
  return from == to || wider.count({from, to}) > 0;
}

// Ops whose inputs and output all have one element type T (ONNX type constraints): the
// output's type is any input's. Ops with index, shape or axes inputs (Gather, Reshape, Slice,
// Squeeze at opset 13, ...) are left out, so an int64 input is never taken for the data type.
bool keeps_type(const std::string& type) {
  static const std::set<std::string> ops = {"Add",
                                            "Sub",
                                            "Mul",
                                            "Div",
                                            "Relu",
                                            "LeakyRelu",
                                            "Sigmoid",
                                            "Tanh",
                                            "Softmax",
                                            "Conv",
                                            "MatMul",
                                            "Gemm",
                                            "BatchNormalization",
                                            "LayerNormalization",
                                            "Flatten",
                                            "Transpose",
                                            "Identity",
                                            "MaxPool",
                                            "AveragePool",
                                            "GlobalAveragePool",
                                            "GlobalMaxPool",
                                            "Concat",
                                            "Gelu",
                                            "Erf",
                                            "Sqrt",
                                            "Neg",
                                            "Abs",
                                            "Exp",
                                            "Log",
                                            "HardSwish",
                                            "HardSigmoid",
                                            "Softplus",
                                            "Mish",
                                            "Elu",
                                            "Selu",
                                            "PRelu",
                                            "InstanceNormalization",
                                            "Sum",
                                            "Max",
                                            "Min",
                                            "Mean",
                                            "Reciprocal"};
  return ops.count(type) > 0;
}

class TypeOf {
 public:
  explicit TypeOf(const OpGraph& g) : g_(g), memo_(g.nodes.size()), busy_(g.nodes.size()) {}

  // Element type of a node's (first) output: recorded, a Cast's target, or carried by a
  // type-preserving op from its first input; "" when unknown.
  std::string output(size_t n) {
    if (memo_[n]) return *memo_[n];
    if (busy_[n]) return {};
    busy_[n] = true;
    const OpNode& node = g_.nodes[n];
    std::string t;
    if (!node.out_dtype.empty()) {
      t = type_name(node.out_dtype);
    } else if (node.type == "Cast") {
      if (auto to = attr_ints(node.attrs, "to"); to && to->size() == 1) t = onnx_type((*to)[0]);
    } else if (keeps_type(node.type)) {
      t = input(n);
    }
    busy_[n] = false;
    memo_[n] = t;
    return t;
  }

  // Element type of a node's data inputs: recorded, else that of the inputs it reads (the
  // ops this is asked for take one type T for all data inputs).
  std::string input(size_t n) {
    const OpNode& node = g_.nodes[n];
    if (!node.in_dtype.empty()) return type_name(node.in_dtype);
    for (size_t p : g_.pred[n])
      if (auto t = output(p); !t.empty()) return t;
    for (const auto& v : node.value_inputs) {  // a graph input or an initializer
      auto it = g_.value_dtypes.find(v);
      if (it != g_.value_dtypes.end()) return type_name(it->second);
    }
    return {};
  }

 private:
  const OpGraph& g_;
  std::vector<std::optional<std::string>> memo_;
  std::vector<bool> busy_;
};

std::string perm_text(const std::vector<int64_t>& p) {
  std::string s = "[";
  for (size_t i = 0; i < p.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(p[i]);
  }
  s += ']';
  return s;
}

bool identity_perm(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return !p.empty();
}

// transpose(transpose(x, a), b) = x when a[b[i]] = i for every axis.
bool inverse_perms(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  if (a.size() != b.size() || a.empty()) return false;
  for (size_t i = 0; i < b.size(); ++i) {
    if (b[i] < 0 || static_cast<size_t>(b[i]) >= a.size()) return false;
    if (a[static_cast<size_t>(b[i])] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

}  // namespace

bool compute_node(const OpNode& n) {
  static const std::set<std::string> passive = {
      "Data",      "RefData",         "Const",
      "Constant",  "Variable",        "VariableV2",
      "NetOutput", "PlaceHolder",     "Placeholder",
      "End",       "PartitionedCall", "StatefulPartitionedCall",
      "AippData",  "ConstPlaceHolder"};
  return passive.count(n.type) == 0;
}

GraphSize graph_size(const OpGraph& g) {
  GraphSize s;
  s.bytes_known = true;
  for (const auto& n : g.nodes) {
    if (!compute_node(n)) continue;
    ++s.compute_nodes;
    if (n.out_bytes < 0)
      s.bytes_known = false;
    else
      s.out_bytes += n.out_bytes;
  }
  s.bytes_known = s.bytes_known && s.compute_nodes > 0 && s.out_bytes > 0;
  return s;
}

StructuralEstimate estimate(const OpGraph& g, const GraphSize& size,
                            const std::vector<size_t>& removed) {
  StructuralEstimate e;
  if (size.compute_nodes == 0) return e;
  int64_t bytes = 0;
  bool known = true;
  for (size_t n : removed) {
    if (g.nodes[n].out_bytes < 0) known = false;
    bytes += std::max<int64_t>(g.nodes[n].out_bytes, 0);
  }
  if (known) e.bytes = bytes;
  if (size.bytes_known && known)
    e.share = static_cast<double>(bytes) / static_cast<double>(size.out_bytes);
  else
    e.share = static_cast<double>(removed.size()) / static_cast<double>(size.compute_nodes);
  return e;
}

std::vector<Cleanup> find_cleanups(const OpGraph& g) {
  std::vector<Cleanup> out;
  TypeOf types(g);
  auto only_reader = [&](size_t n, size_t reader) {
    return g.succ[n].size() == 1 && g.succ[n][0] == reader;
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const OpNode& n = g.nodes[i];
    if (n.type == "Identity") {
      out.push_back({"identity", "remove_identity", {i}, {i}, "", true});
    } else if (n.type == "Dropout" && n.inputs <= 2 && n.outputs <= 1) {
      // Without a training_mode input and with its mask unread, Dropout is the identity at
      // inference (ONNX opset >= 12; earlier opsets have no such input either).
      out.push_back({"dropout", "remove_dropout", {i}, {i}, "", true});
    } else if (n.type == "Transpose" || n.type == "TransposeD") {
      auto perm = attr_ints(n.attrs, "perm");
      if (!perm) continue;
      if (identity_perm(*perm)) {
        out.push_back(
            {"transpose_identity", "remove_transpose", {i}, {i}, "perm " + perm_text(*perm), true});
        continue;
      }
      if (g.succ[i].size() != 1) continue;
      size_t j = g.succ[i][0];
      const OpNode& m = g.nodes[j];
      if (m.type != "Transpose" && m.type != "TransposeD") continue;
      auto perm2 = attr_ints(m.attrs, "perm");
      if (perm2 && inverse_perms(*perm, *perm2))
        out.push_back({"transpose_inverse",
                       "remove_transpose",
                       {i, j},
                       {i, j},
                       "perm " + perm_text(*perm) + " then " + perm_text(*perm2),
                       true});
    } else if (n.type == "Cast") {
      if (g.succ[i].size() != 1 || g.nodes[g.succ[i][0]].type != "Cast") continue;
      size_t j = g.succ[i][0];
      std::string from = types.input(i), mid = types.output(i), back = types.output(j);
      // The input type must be known: without it a "round trip" cannot be told from a
      // conversion, and the pass refuses it too.
      if (from.empty() || mid.empty() || back != from || mid == from) continue;
      // An integer middle type for a float, or a narrower integer, truncates or wraps: that
      // is a conversion the model may rely on, not rounding (the pass never removes it).
      bool float_from = from.find("FLOAT") != std::string::npos || from == "DOUBLE";
      bool float_mid = mid.find("FLOAT") != std::string::npos || mid == "DOUBLE";
      if (float_from != float_mid) continue;
      if (!float_from && !holds_every_value(from, mid)) continue;
      out.push_back({"cast_round_trip",
                     "remove_cast_round_trip",
                     {i, j},
                     {i, j},
                     from + ">" + mid + ">" + back,
                     holds_every_value(from, mid)});
    } else if (n.type == "Conv" && g.format == "onnx") {
      if (g.succ[i].size() != 1) continue;
      size_t j = g.succ[i][0];
      const OpNode& bn = g.nodes[j];
      // Inference form: one output (training mode also writes the running statistics).
      if (bn.type != "BatchNormalization" || bn.outputs > 1 || !only_reader(i, j)) continue;
      if (auto tm = attr_ints(bn.attrs, "training_mode"); tm && !tm->empty() && (*tm)[0] != 0)
        continue;
      out.push_back({"fold_batchnorm", "fold_batchnorm", {i, j}, {j}, "", true});
    }
  }
  return out;
}

}  // namespace perfsage::analyzers::patterns
