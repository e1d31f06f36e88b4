// Passes that merge two nodes into one computing the same function: a BatchNormalization
// (inference) folded into the Conv before it, and MatMul + Add fused into Gemm.
#include <cmath>
#include <sstream>
#include <variant>

#include "actions/onnx/passes.h"

namespace perfsage::actions::onnx {
namespace {

bool float_type(int32_t t) {
  return t == ox::TensorProto::FLOAT || t == ox::TensorProto::DOUBLE;
}

std::string dims_text(const ox::TensorProto& t) {
  std::ostringstream os;
  os << "[";
  for (int k = 0; k < t.dims_size(); ++k) os << (k ? "," : "") << t.dims(k);
  os << "]";
  return os.str();
}

// Why BatchNormalization node `b` does not compute the inference formula, if it does not.
std::optional<std::string> not_inference(const GraphEditor& g, int b) {
  const auto& n = g.node(b);
  if (int_attribute(n, "training_mode", 0) != 0) return "training_mode=1 (batch statistics)";
  if (g.opset() < 7 && int_attribute(n, "is_test", 0) == 0) return "is_test=0 (training mode)";
  if (g.opset() < 9 && int_attribute(n, "spatial", 1) != 1)
    return "spatial=0 (per-position statistics)";
  for (int k = 1; k < n.output_size(); ++k) {
    if (!n.output(k).empty() && g.used(n.output(k))) {
      return "its statistics output " + n.output(k) + " is used";
    }
  }
  if (n.input_size() != 5) return "it has " + std::to_string(n.input_size()) + " inputs, not 5";
  return std::nullopt;
}

struct BatchNormFold {
  std::vector<double> weight, bias;
  std::vector<int64_t> weight_dims;
  int32_t type = 0;
};

// y = scale * (conv(x) + B - mean) / sqrt(var + eps) + bias
//   = conv'(x) with W'[m] = W[m] * s[m], B'[m] = (B[m] - mean[m]) * s[m] + bias[m],
// s = scale / sqrt(var + eps), computed in double and rounded once.
std::variant<BatchNormFold, std::string> compute_fold(const GraphEditor& g, int conv, int bn,
                                                      std::vector<int>& chain) {
  const auto& c = g.node(conv);
  const auto& b = g.node(bn);
  const auto* w = g.constant(c.input(1), &chain);
  if (!w) return "the Conv weight " + c.input(1) + " is not a constant";
  const ox::TensorProto* cb = nullptr;
  if (c.input_size() > 2 && !c.input(2).empty()) {
    cb = g.constant(c.input(2), &chain);
    if (!cb) return "the Conv bias " + c.input(2) + " is not a constant";
  }
  const ox::TensorProto* p[4];
  for (int k = 0; k < 4; ++k) {
    p[k] = g.constant(b.input(k + 1), &chain);
    if (!p[k]) return "the BatchNormalization input " + b.input(k + 1) + " is not a constant";
  }
  if (!float_type(w->data_type())) return "weights are not float or double";
  if (w->dims_size() < 3) return "the Conv weight has shape " + dims_text(*w);
  int64_t m = w->dims(0);
  auto wv = tensor_values(*w);
  std::optional<std::vector<double>> bv = std::vector<double>(m, 0.0);
  if (cb) bv = tensor_values(*cb);
  std::optional<std::vector<double>> pv[4];
  for (int k = 0; k < 4; ++k) {
    if (p[k]->data_type() != w->data_type()) return "BatchNormalization and Conv types differ";
    pv[k] = tensor_values(*p[k]);
    if (!pv[k] || static_cast<int64_t>(pv[k]->size()) != m) {
      return "BatchNormalization parameter " + p[k]->name() + " is not " + std::to_string(m) +
             " readable values";
    }
  }
  if (!wv || !bv || static_cast<int64_t>(bv->size()) != m) {
    return "the Conv weight or bias data cannot be read (external data or a shape mismatch)";
  }
  if (cb && cb->data_type() != w->data_type()) return "Conv weight and bias types differ";
  double eps = float_attribute(b, "epsilon", 1e-5f);
  BatchNormFold f;
  f.type = w->data_type();
  f.weight_dims.assign(w->dims().begin(), w->dims().end());
  f.weight = *wv;
  f.bias.resize(m);
  size_t per_channel = wv->size() / static_cast<size_t>(m);
  const auto &scale = *pv[0], &shift = *pv[1], &mean = *pv[2], &var = *pv[3];
  for (int64_t k = 0; k < m; ++k) {
    if (var[k] + eps <= 0) return "variance plus epsilon is not positive";
    double s = scale[k] / std::sqrt(var[k] + eps);
    for (size_t e = 0; e < per_channel; ++e) f.weight[k * per_channel + e] *= s;
    f.bias[k] = ((*bv)[k] - mean[k]) * s + shift[k];
  }
  return f;
}

}  // namespace

void fold_batchnorm(GraphEditor& g, const PassScope& scope, PassResult& out) {
  in_rounds(g, out, [&](RoundNotes& notes) {
    int applied = 0;
    for (int b = 0; b < g.node_count(); ++b) {
      if (!g.is_op(b, "BatchNormalization") || g.node(b).input_size() == 0) continue;
      int c = g.producer(g.node(b).input(0));
      if (c < 0 || !g.is_op(c, "Conv") || !scope.covers(g, {c, b})) continue;
      std::vector<std::string> names = {g.node_name(c), g.node_name(b)};
      const std::string& conv_out = g.node(b).input(0);
      if (g.node(c).input_size() < 2 || g.node(c).output_size() != 1) continue;
      if (!g.only_feeds(conv_out, b)) {
        notes.skipped.push_back({names, "the Conv output " + conv_out + " has other readers"});
        continue;
      }
      if (auto why = not_inference(g, b)) {
        notes.skipped.push_back({names, "BatchNormalization is not in inference form: " + *why});
        continue;
      }
      if (g.any_touched({c, b})) continue;
      std::vector<int> chain;
      auto fold = compute_fold(g, c, b, chain);
      if (auto* why = std::get_if<std::string>(&fold)) {
        notes.skipped.push_back({names, *why});
        continue;
      }
      auto& f = std::get<BatchNormFold>(fold);
      auto& conv = g.mutable_node(c);
      std::string w = g.add_initializer(make_tensor(f.type, f.weight_dims, f.weight),
                                        conv.input(1) + "_bnfold");
      std::string bias = g.add_initializer(
          make_tensor(f.type, {static_cast<int64_t>(f.bias.size())}, f.bias),
          (conv.input_size() > 2 && !conv.input(2).empty() ? conv.input(2)
                                                           : conv.input(1) + "_bias") +
              "_bnfold");
      g.forget(conv.input(1));
      if (conv.input_size() > 2) g.forget(conv.input(2));
      conv.set_input(1, w);
      if (conv.input_size() > 2) {
        conv.set_input(2, bias);
      } else {
        conv.add_input(bias);
      }
      conv.set_output(0, g.node(b).output(0));
      g.remove_node(b);
      g.remove_dead_chain(chain);
      g.touch(c);
      out.applied.push_back({names, "folded BatchNormalization into the Conv's weight and bias"});
      ++applied;
    }
    return applied;
  });
}

void fuse_matmul_add(GraphEditor& g, const PassScope& scope, PassResult& out) {
  in_rounds(g, out, [&](RoundNotes& notes) {
    int applied = 0;
    for (int a = 0; a < g.node_count(); ++a) {
      if (!g.is_op(a, "Add") || g.node(a).input_size() != 2 || g.touched(a)) continue;
      int side = -1, m = -1;
      for (int k = 0; k < 2 && m < 0; ++k) {
        int p = g.producer(g.node(a).input(k));
        if (p >= 0 && g.is_op(p, "MatMul")) side = k, m = p;
      }
      if (m < 0 || !scope.covers(g, {m, a})) continue;
      std::vector<std::string> names = {g.node_name(m), g.node_name(a)};
      auto skip = [&](std::string why) { notes.skipped.push_back({names, std::move(why)}); };
      const auto& mm = g.node(m);
      const std::string& product = g.node(a).input(side);
      const std::string& c_name = g.node(a).input(1 - side);
      if (g.opset() < 7) {
        skip("opset " + std::to_string(g.opset()) + " Gemm does not broadcast its bias");
        continue;
      }
      if (!g.only_feeds(product, a)) {
        skip("the MatMul output " + product + " has other readers");
        continue;
      }
      if (g.rank(mm.input(0)) != 2 || g.rank(mm.input(1)) != 2) {
        skip("the MatMul inputs are not known to be 2-D");
        continue;
      }
      auto type = g.elem_type(mm.input(0));
      if (!type || !float_type(*type)) {
        skip("the MatMul input type is not known to be float or double");
        continue;
      }
      const auto* w = g.constant(mm.input(1));
      const auto* c = g.constant(c_name);
      if (!w || !c || w->dims_size() != 2) {
        skip("the weight and the bias are not both constants, or the weight is not 2-D");
        continue;
      }
      int64_t n = w->dims(1);
      // A scalar or one row of width N: Add and Gemm both broadcast it over the M rows.
      bool row = c->dims_size() == 0 ||
                 (c->dims_size() == 1 && (c->dims(0) == n || c->dims(0) == 1)) ||
                 (c->dims_size() == 2 && c->dims(0) == 1 && (c->dims(1) == n || c->dims(1) == 1));
      if (!row) {
        skip("the bias shape " + dims_text(*c) + " is not a scalar or a row of width " +
             std::to_string(n));
        continue;
      }
      if (c->data_type() != *type || w->data_type() != *type) {
        skip("the weight, bias and input types differ");
        continue;
      }
      std::vector<int> involved = {m, a};
      for (int k : g.consumers(g.node(a).output(0))) involved.push_back(k);
      if (g.any_touched(involved)) continue;
      auto& gemm = g.mutable_node(m);
      gemm.set_op_type("Gemm");
      g.set_node_name(m, g.node_name(m));
      gemm.add_input(c_name);
      gemm.set_output(0, g.node(a).output(0));
      g.remove_node(a);
      g.touch(m);
      out.applied.push_back({names, "fused MatMul and Add into Gemm"});
      ++applied;
    }
    return applied;
  });
}

}  // namespace perfsage::actions::onnx
