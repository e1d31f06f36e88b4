#include "analyzers/roofline/op_models.h"

#include <algorithm>
#include <set>

namespace perfsage::analyzers::roofline {
namespace {

double numel(const Shape& s) {
  double n = 1;
  for (auto d : s) n *= static_cast<double>(std::max<int64_t>(d, 0));
  return n;
}

bool has(const std::string& s, const char* w) {
  return s.find(w) != std::string::npos;
}

Flops refuse(std::string why) {
  Flops f;
  f.why = std::move(why);
  return f;
}

// Numpy-style broadcast of two batch shapes; nullopt when they do not broadcast.
std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[out.size() - 1 - i] = std::max(x, y);
  }
  return out;
}

Shape batch_of(const Shape& s) {
  return s.size() > 2 ? Shape(s.begin(), s.end() - 2) : Shape{};
}

// An operand's (rows, cols) after an optional transpose of its last two dims.
std::pair<int64_t, int64_t> rows_cols(const Shape& s, bool transposed) {
  int64_t r = s.size() >= 2 ? s[s.size() - 2] : 1, c = s.back();
  return transposed ? std::make_pair(c, r) : std::make_pair(r, c);
}

}  // namespace

Flops matmul_flops(const std::string& t, const Shape& a, const Shape& b,
                   const std::vector<Shape>& outputs) {
  if (a.empty() || b.empty()) return refuse("matmul needs two operand shapes");
  const bool aten = t.rfind("aten::", 0) == 0;
  if (aten && has(t, "linear")) {
    // input [..., K], weight [N, K]
    if (b.size() != 2 || b[1] != a.back()) return refuse("linear operand shapes do not agree");
    Flops f;
    double m = numel(a) / static_cast<double>(a.back());
    f.flops = 2 * m * static_cast<double>(b[0]) * static_cast<double>(a.back());
    f.out_numel = m * static_cast<double>(b[0]);
    return f;
  }
  // Candidate operand orientations: the aten ops have none to choose (their Input Dims are
  // the logical shapes); Ascend MatMul/BatchMatMul record transpose_x1/x2 only as attributes.
  std::vector<std::pair<bool, bool>> orient = {{false, false}};
  if (!aten) orient = {{false, false}, {false, true}, {true, false}, {true, true}};
  const Shape* out = nullptr;
  for (const auto& o : outputs)
    if (o.size() >= 2) {
      out = &o;
      break;
    }
  std::set<double> counts;
  double out_numel = 0;
  for (auto [ta, tb] : orient) {
    Shape aa = a.size() == 1 ? Shape{1, a[0]} : a;  // torch.matmul: a 1-D operand is a row
    Shape bb = b.size() == 1 ? Shape{b[0], 1} : b;  // ... or a column
    auto [m, ka] = rows_cols(aa, ta);
    auto [kb, n] = rows_cols(bb, tb);
    if (ka != kb) continue;
    auto batch = broadcast(batch_of(aa), batch_of(bb));
    if (!batch) continue;
    if (out && ((*out)[out->size() - 2] != m || out->back() != n)) continue;
    double bsz = numel(*batch);
    counts.insert(2 * bsz * static_cast<double>(m) * static_cast<double>(n) *
                  static_cast<double>(ka));
    out_numel = bsz * static_cast<double>(m) * static_cast<double>(n);
  }
  if (counts.empty()) return refuse("matmul operand shapes do not agree");
  if (counts.size() > 1)
    return refuse("no FLOP model: the operands' transposes cannot be told from the shapes");
  Flops f;
  f.flops = *counts.begin();
  f.out_numel = out ? numel(*out) : out_numel;
  return f;
}

Flops grouped_matmul_flops(const std::vector<Shape>& in, const std::vector<Shape>& outputs) {
  // The one layout that is sure: x [M, K], weight [E, K, N] or [E, N, K], group_list [E].
  if (in.size() < 2 || in[0].size() != 2 || in[1].size() != 3)
    return refuse("no FLOP model: GroupedMatmul with tensor lists (group sizes not recorded)");
  const Shape& x = in[0];
  const Shape& w = in[1];
  int64_t k = x[1], n;
  if (w[1] == k)
    n = w[2];
  else if (w[2] == k)
    n = w[1];
  else
    return refuse("GroupedMatmul operand shapes do not agree");
  if (w[1] == k && w[2] == k) n = k;
  for (const auto& o : outputs)
    if (o.size() == 2 && (o[0] != x[0] || o[1] != n))
      return refuse("GroupedMatmul output shape does not agree");
  Flops f;
  f.flops = 2 * static_cast<double>(x[0]) * static_cast<double>(k) * static_cast<double>(n);
  f.out_numel = static_cast<double>(x[0]) * static_cast<double>(n);
  return f;
}

Flops attention_flops(const std::string& t, const std::vector<Shape>& in,
                      const std::vector<Shape>& outputs) {
  if (in.size() < 3) return refuse("attention needs query, key and value shapes");
  const Shape& q = in[0];
  const Shape& k = in[1];
  const bool backward = has(t, "grad") || has(t, "backward");
  double b = 0, n = 0, sq = 0, sk = 0, d = 0;
  bool causal = false;
  auto set = [&](double B, double N, double Sq, double Sk, double D) {
    b = B, n = N, sq = Sq, sk = Sk, d = D;
  };
  if (t.rfind("aten::", 0) == 0) {
    if (q.size() != 4 || k.size() != 4) return refuse("attention query and key must be 4-D");
    if (has(t, "_flash_attention"))  // [B, S, N, D]
      set(q[0], q[2], q[1], k[1], q[3]);
    else  // scaled_dot_product_attention and its kernels: [B, N, S, D]
      set(q[0], q[1], q[2], k[2], q[3]);
  } else {
    // The softmax statistics name B, N and Sq: [B, N, Sq, 8] (or [T, N, 8] for TND).
    std::vector<Shape> others(in.begin() + 3, in.end());
    others.insert(others.end(), outputs.begin(), outputs.end());
    const Shape* stats = nullptr;
    bool tnd = false;
    for (const auto& s : others) {
      if (s.size() == 4 && s[3] == 8) stats = &s;
      if (s.size() == 3 && s[2] == 8 && q.size() == 3 && s[0] == q[0] && s[1] == q[1]) tnd = true;
      if (stats) break;
    }
    if (tnd && !stats)
      return refuse("no FLOP model: TND layout without the sequence lengths (actual_seq_qlen)");
    std::optional<int64_t> mask_sq;
    for (const auto& s : others) {
      if (s.size() == 4 && s[1] == 1 && s[2] != 2048) mask_sq = s[2];
      if (s.size() == 2 && s[0] == 2048 && s[1] == 2048) causal = true;
      if (s.size() == 2 && s[0] != 2048) mask_sq = s[0];
    }
    if (q.size() == 3) {  // BSH [B, S, H] or SBH [S, B, H], H = N x D
      int64_t B, S;
      if (stats && q[0] == (*stats)[0] && q[1] == (*stats)[2])
        B = q[0], S = q[1];
      else if (stats && q[1] == (*stats)[0] && q[0] == (*stats)[2])
        B = q[1], S = q[0];
      else if (!stats && mask_sq && q[1] == *mask_sq && q[0] != *mask_sq)
        B = q[0], S = q[1];
      else if (!stats && mask_sq && q[0] == *mask_sq && q[1] != *mask_sq)
        B = q[1], S = q[0];
      else
        return refuse(
            "no FLOP model: attention layout (BSH or SBH) cannot be told from the shapes");
      if (!stats) return refuse("no FLOP model: attention head count not recorded");
      int64_t N = (*stats)[1];
      if (N <= 0 || q[2] % N != 0) return refuse("attention head dim does not divide H");
      bool sbh = S == q[0] && B == q[1] && !(B == q[0] && S == q[1]);
      int64_t Sk = k.size() == 3 ? (sbh ? k[0] : k[1]) : 0;
      if (Sk <= 0) return refuse("attention key shape does not agree");
      set(B, N, S, Sk, q[2] / N);
    } else if (q.size() == 4) {  // BNSD [B, N, S, D] or BSND [B, S, N, D]
      int64_t S = stats ? (*stats)[2] : mask_sq.value_or(-1);
      int64_t N = stats ? (*stats)[1] : -1;
      bool bnsd = q[2] == S && (N < 0 || q[1] == N);
      bool bsnd = q[1] == S && (N < 0 || q[2] == N);
      if (bnsd && (!bsnd || q[1] == q[2]))
        set(q[0], q[1], q[2], k.size() == 4 ? k[2] : 0, q[3]);
      else if (bsnd)
        set(q[0], q[2], q[1], k.size() == 4 ? k[1] : 0, q[3]);
      else
        return refuse(
            "no FLOP model: attention layout (BNSD or BSND) cannot be told from the shapes");
      if (sk <= 0) return refuse("attention key shape does not agree");
    } else {
      return refuse("no FLOP model: attention query of rank " + std::to_string(q.size()));
    }
  }
  Flops f;
  f.flops = 4 * b * n * sq * sk * d;
  // A compressed 2048 x 2048 mask with longer sequences is the causal band (sparse_mode 2/3):
  // the kernel skips the blocks above the diagonal.
  if (causal && sq > 2048 && sq == sk) f.flops *= (sq + 1) / (2 * sq);
  if (backward) f.flops *= 2.5;  // dV, dP, dS·K, dS^T·Q and the recomputed Q·K^T: 5 of 2
  f.out_numel = numel(q);
  f.head_dim = d;
  return f;
}

}  // namespace perfsage::analyzers::roofline
