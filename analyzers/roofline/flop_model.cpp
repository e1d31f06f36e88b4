#include "analyzers/roofline/flop_model.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "analyzers/roofline/op_models.h"

namespace perfsage::analyzers::roofline {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

double numel(const Shape& s) {
  double n = 1;
  for (auto d : s) n *= static_cast<double>(std::max<int64_t>(d, 0));
  return n;
}

bool contains_any(const std::string& s, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(),
                     [&](const char* w) { return s.find(w) != std::string::npos; });
}

// Bytes of a tensor list, using the dtype of the same index (else the first known dtype).
double tensor_bytes(const std::vector<Shape>& shapes, const std::vector<std::string>& dtypes,
                    int fallback) {
  double total = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (shapes[i].empty()) continue;
    int b = i < dtypes.size() ? dtype_bytes(dtypes[i]) : 0;
    total += numel(shapes[i]) * (b > 0 ? b : fallback);
  }
  return total;
}

std::vector<Shape> tensors_only(const std::vector<Shape>& in) {
  std::vector<Shape> out;
  for (const auto& s : in)
    if (!s.empty()) out.push_back(s);
  return out;
}

}  // namespace

std::vector<Shape> parse_shapes(const std::string& text) {
  std::vector<Shape> out;
  std::string t;
  for (char c : text)
    if (c != '"' && c != ' ') t += c;
  if (t.empty()) return out;
  if (t.front() == '[') {
    // JSON: depth 1 opens the list, depth 2 a tensor; deeper lists (TensorList) are flattened
    // into their first tensor.
    int depth = 0;
    Shape cur;
    int64_t num = 0;
    bool have = false;
    for (char c : t) {
      if (c == '[') {
        ++depth;
        if (depth == 2) cur.clear();
      } else if (c == ']' || c == ',') {
        if (have && depth >= 2) cur.push_back(num);
        have = false;
        num = 0;
        if (c == ']') {
          if (depth == 2) out.push_back(cur);
          --depth;
        }
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        num = num * 10 + (c - '0');
        have = true;
        if (num > (int64_t(1) << 40)) return {};
      } else if (c == '-') {
        // negative dims (dynamic) make the shape unusable
        return {};
      }
      if (depth < 0) return {};
    }
    return out;
  }
  size_t start = 0;
  while (start <= t.size()) {
    size_t end = t.find(';', start);
    if (end == std::string::npos) end = t.size();
    Shape s;
    std::string part = t.substr(start, end - start);
    size_t p = 0;
    while (p < part.size()) {
      size_t q = part.find(',', p);
      if (q == std::string::npos) q = part.size();
      std::string dim = part.substr(p, q - p);
      if (dim.empty() ||
          !std::all_of(dim.begin(), dim.end(),
                       [](char c) { return std::isdigit((unsigned char)c); }) ||
          dim.size() > 12)
        return {};
      s.push_back(std::stoll(dim));
      p = q + 1;
    }
    out.push_back(s);
    start = end + 1;
  }
  return out;
}

std::vector<std::string> parse_dtypes(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  bool json = !text.empty() && text.front() == '[';
  for (char c : text) {
    if (c == '"' || c == '[' || c == ']' || c == ' ') continue;
    if (c == (json ? ',' : ';')) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty() || !out.empty()) out.push_back(cur);
  return out;
}

std::vector<Shape> logical_shapes(std::vector<Shape> shapes, const std::string& formats) {
  std::vector<std::string> f = parse_dtypes(formats);  // the same ';'-separated list
  for (size_t i = 0; i < shapes.size() && i < f.size(); ++i) {
    Shape& s = shapes[i];
    if (f[i].find("FRACTAL_NZ") == std::string::npos || s.size() < 4) continue;
    size_t r = s.size();
    int64_t rows = s[r - 3] * s[r - 2], cols = s[r - 4] * s[r - 1];
    s.resize(r - 2);
    s[r - 4] = rows;
    s[r - 3] = cols;
  }
  return shapes;
}

int dtype_bytes(const std::string& dtype) {
  std::string d = lower(dtype);
  if (d.rfind("c10::", 0) == 0) d = d.substr(5);
  if (d == "float16" || d == "half" || d == "bfloat16" || d == "bf16" || d == "dt_bf16" ||
      d == "int16" || d == "short")
    return 2;
  if (d == "float" || d == "float32" || d == "int32" || d == "int" || d == "uint32") return 4;
  if (d == "double" || d == "float64" || d == "int64" || d == "long" || d == "long int" ||
      d == "uint64")
    return 8;
  if (d == "int8" || d == "uint8" || d == "bool" || d == "signed char" || d == "unsigned char")
    return 1;
  return 0;
}

std::string precision_of(const std::string& dtype) {
  std::string d = lower(dtype);
  if (d.rfind("c10::", 0) == 0) d = d.substr(5);
  if (d == "float16" || d == "half") return "fp16";
  if (d == "bfloat16" || d == "bf16" || d == "dt_bf16") return "bf16";
  if (d == "float" || d == "float32") return "fp32";
  if (d == "double" || d == "float64") return "fp64";
  if (d == "int8" || d == "uint8") return "int8";
  if (dtype_bytes(d) > 0) return "int";
  return "unknown";
}

std::string op_class(const std::string& type) {
  std::string t = lower(type);
  if (t.rfind("aten::", 0) == 0) t = t.substr(6);
  if (contains_any(t, {"attention", "flash", "sdpa"})) return "attention";
  if (contains_any(t, {"rotary", "rope"})) return "rope";
  if (contains_any(t, {"swiglu", "swi_glu"})) return "swiglu";
  if (contains_any(t, {"conv"})) return "conv";
  if (contains_any(t, {"matmul", "addmm", "bmm", "gemm", "linear"}) || t == "mm" || t == "_mm" ||
      t.rfind("mm_", 0) == 0)
    return "matmul";
  if (contains_any(t, {"softmax"})) return "softmax";
  if (contains_any(t, {"norm"})) return "norm";
  if (contains_any(t, {"reduce", "sum", "mean", "amax", "amin", "argmax", "argmin"}))
    return "reduction";
  if (contains_any(
          t, {"add",    "sub",     "mul",       "div",       "relu",       "gelu",    "silu",
              "swish",  "sigmoid", "tanh",      "mish",      "softplus",   "exp",     "log",
              "sqrt",   "pow",     "neg",       "abs",       "clamp",      "maximum", "minimum",
              "where",  "erf",     "hardswish", "leakyrelu", "leaky_relu", "elu",     "threshold",
              "square", "rsqrt",   "cast",      "copy",      "zeroslike",  "fill",    "dropout"}))
    return "elementwise";
  return "other";
}

Estimate estimate(const std::string& type, const std::vector<Shape>& inputs_raw,
                  const std::vector<std::string>& in_dtypes, const std::vector<Shape>& outputs,
                  const std::vector<std::string>& out_dtypes) {
  Estimate e;
  std::string cls = op_class(type);
  std::vector<Shape> in = tensors_only(inputs_raw);
  if (in.empty()) {
    e.why = "no input shapes";
    return e;
  }
  int fallback = 0;
  for (const auto& d : in_dtypes)
    if ((fallback = dtype_bytes(d)) > 0) break;
  if (fallback == 0) {
    e.why = "unknown data type";
    return e;
  }
  double in_bytes = tensor_bytes(inputs_raw, in_dtypes, fallback);
  std::string t = lower(type);
  double out_numel = 0;
  for (const auto& o : outputs) out_numel += numel(o);

  if (cls == "matmul") {
    if (contains_any(t, {"grouped"})) {
      Flops f = grouped_matmul_flops(in, outputs);
      if (!f.ok()) {
        e.why = f.why;
        return e;
      }
      e.flops = f.flops;
      if (out_numel == 0) out_numel = f.out_numel;
    } else {
      // addmm / baddbmm / Gemm with bias first: the operands are the last two rank>=2 tensors;
      // MatMul's bias comes last.
      std::vector<Shape> mats;
      for (const auto& s : in)
        if (s.size() >= 2 || (s.size() == 1 && mats.size() < 2)) mats.push_back(s);
      if (contains_any(t, {"addmm", "baddbmm"}) && mats.size() >= 3) mats.erase(mats.begin());
      if (mats.size() < 2) {
        e.why = "matmul needs two operand shapes";
        return e;
      }
      Flops f = matmul_flops(t, mats[0], mats[1], outputs);
      if (!f.ok()) {
        e.why = f.why;
        return e;
      }
      e.flops = f.flops;
      if (out_numel == 0) out_numel = f.out_numel;
    }
  } else if (cls == "conv") {
    if (in.size() < 2 || in[0].size() < 3 || in[1].size() != in[0].size()) {
      e.why = "convolution needs input and weight shapes";
      return e;
    }
    if (outputs.empty() || outputs[0].size() != in[0].size()) {
      e.why = "convolution output shape unknown (stride and padding not recorded)";
      return e;
    }
    // FLOPs = 2 * output elements * (C_in / groups) * kernel area; weight is [O, C/g, k...].
    double per_out = numel(in[1]) / static_cast<double>(std::max<int64_t>(in[1][0], 1));
    e.flops = 2 * numel(outputs[0]) * per_out;
  } else if (cls == "attention") {
    Flops f = attention_flops(t, in, tensors_only(outputs));
    if (!f.ok()) {
      e.why = f.why;
      return e;
    }
    e.flops = f.flops;
    if (out_numel == 0) out_numel = f.out_numel;
  } else if (cls == "rope") {
    // x * cos + rotate(x) * sin: 3 FLOP per element of each rotated tensor (query and key for
    // ApplyRotaryPosEmb, the first input otherwise).
    double rotated =
        numel(in[0]) +
        (contains_any(t, {"applyrotaryposemb"}) && in.size() >= 2 ? numel(in[1]) : 0.0);
    e.flops = 3 * rotated;
    if (out_numel == 0) out_numel = rotated;
  } else if (cls == "swiglu") {
    // silu(a) * b over the two halves of the last dim: sigmoid (4) + 2 multiplies per output.
    double outs = out_numel > 0 ? out_numel : numel(in[0]) / 2;
    e.flops = 6 * outs;
    if (out_numel == 0) out_numel = outs;
  } else if (cls == "elementwise" || cls == "softmax" || cls == "norm" || cls == "reduction") {
    double biggest = 0;
    for (const auto& s : in) biggest = std::max(biggest, numel(s));
    // Per element: softmax max, sub, exp, sum, div = 5; RMSNorm square, sum, x rstd, x gamma
    // = 4 (AddRmsNorm + the add = 5); LayerNorm sub mean, square, sum, mean, x rstd, x gamma,
    // + beta = 7.
    double per = 1;
    if (cls == "softmax") per = 5;
    if (cls == "norm")
      per = contains_any(t, {"addrmsnorm"}) ? 5 : contains_any(t, {"rmsnorm"}) ? 4 : 7;
    e.flops = per * biggest;
    if (out_numel == 0) out_numel = cls == "reduction" ? 1 : biggest;
  } else {
    e.why = "no FLOP model for op type " + type;
    return e;
  }
  int out_b = 0;
  for (const auto& d : out_dtypes)
    if ((out_b = dtype_bytes(d)) > 0) break;
  e.bytes = in_bytes + out_numel * (out_b > 0 ? out_b : fallback);
  e.ok = e.bytes > 0;
  if (!e.ok) e.why = "zero-sized tensors";
  return e;
}

}  // namespace perfsage::analyzers::roofline
