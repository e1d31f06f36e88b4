#include "analyzers/roofline/shape_alignment.h"

#include <cctype>

#include "analyzers/roofline/flop_model.h"
#include "analyzers/roofline/op_models.h"
#include "analyzers/roofline/tables.h"
#include "store/bind.h"

namespace perfsage::analyzers::roofline {
namespace {

constexpr int64_t kAlignBytes = 512;  // MTE2 moves 512-byte bursts (32 B blocks x 16)
constexpr int64_t kHeadDimMultiple = 128;

int64_t round_up(int64_t v, int64_t m) {
  return (v + m - 1) / m * m;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::vector<Misalignment> check_alignment(const OpGroup& g) {
  std::vector<Misalignment> out;
  if (g.core_type != "AI_CORE" && g.core_type != "MIX_AIC") return out;
  std::string cls = op_class(g.type);
  if (cls != "matmul" && cls != "attention") return out;
  auto in = logical_shapes(parse_shapes(g.input_shapes.value_or("")), g.input_formats.value_or(""));
  auto outs =
      logical_shapes(parse_shapes(g.output_shapes.value_or("")), g.output_formats.value_or(""));
  auto dtypes = parse_dtypes(g.input_dtypes.value_or(""));
  auto formats = parse_dtypes(g.input_formats.value_or(""));
  auto base = [&](const std::string& kind) {
    Misalignment m;
    m.name = g.name;
    m.type = g.type;
    m.kind = kind;
    m.count = g.count;
    m.total_us = static_cast<double>(g.sum_ns) / 1000.0;
    m.shapes = g.input_shapes.value_or("");
    return m;
  };
  if (cls == "matmul") {
    if (lower(g.type).find("grouped") != std::string::npos) return out;
    // The two operands: the first two tensors of rank >= 2 (the bias, if any, comes last).
    int seen = 0;
    for (size_t i = 0; i < in.size() && seen < 2; ++i) {
      if (in[i].size() < 2) continue;
      ++seen;
      // FRACTAL_NZ operands are stored in 16 x 16 fractals: already aligned for the cube.
      if (i < formats.size() && formats[i].find("FRACTAL") != std::string::npos) continue;
      int bytes = i < dtypes.size() ? dtype_bytes(dtypes[i]) : 0;
      if (bytes <= 0) continue;
      int64_t multiple = kAlignBytes / bytes, inner = in[i].back();
      if (inner % multiple == 0) continue;
      Misalignment m = base("matmul_inner");
      m.dim = seen == 1 ? "x1 inner axis" : "x2 inner axis";
      m.value = inner;
      m.multiple = multiple;
      m.padded = round_up(inner, multiple);
      out.push_back(std::move(m));
    }
  } else {
    Flops f = attention_flops(lower(g.type), in, outs);
    if (!f.ok() || f.head_dim <= 0) return out;
    auto d = static_cast<int64_t>(f.head_dim);
    if (d % kHeadDimMultiple == 0) return out;
    Misalignment m = base("attention_head_dim");
    m.dim = "head dim";
    m.value = d;
    m.multiple = kHeadDimMultiple;
    m.padded = round_up(d, kHeadDimMultiple);
    out.push_back(std::move(m));
  }
  return out;
}

void write_alignment(store::Database& db, int64_t run_id, const std::vector<Misalignment>& rows) {
  db.prepare("DELETE FROM shape_alignment WHERE run_id = ?1").bind(1, run_id).run();
  store::RowInserter st(db, tables::shape_alignment());
  for (const auto& m : rows)
    st.insert(run_id, m.name, m.type, m.kind, m.dim, m.value, m.multiple, m.padded, m.count,
              m.total_us, m.shapes);
}

}  // namespace perfsage::analyzers::roofline
