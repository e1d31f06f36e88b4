#include "analyzers/patterns/transdata.h"

#include <algorithm>
#include <set>

namespace perfsage::analyzers::patterns {
namespace {

std::string single_kind(const OpNode& n) {
  std::string a = format_family(n.in_format), b = format_family(n.out_format);
  if (a.empty() || b.empty()) return "unknown";
  std::set<std::string> pair{a, b};
  if (pair == std::set<std::string>{"5HD", "NZ"}) return "5hd_nz";
  if (pair == std::set<std::string>{"ND", "NZ"}) return "nd_nz";
  if (pair == std::set<std::string>{"4D", "5HD"}) return "4d_5hd";
  if (pair == std::set<std::string>{"4D", "NZ"}) return "nd_nz";  // 4D weights into FRACTAL_Z
  return "other";
}

// b undoes a: a converts X->Y and b converts Y->X (by family, so NCHW->5HD->NHWC counts).
bool inverse(const OpNode& a, const OpNode& b) {
  auto ai = format_family(a.in_format), ao = format_family(a.out_format);
  auto bi = format_family(b.in_format), bo = format_family(b.out_format);
  return !ai.empty() && !ao.empty() && ai != ao && ao == bi && ai == bo;
}

struct Walk {
  const OpGraph& g;
  size_t window;
  // Paths from `from` to a TransData node through at most `window` non-TransData ops.
  void paths(size_t from, std::vector<size_t>& path, std::vector<std::vector<size_t>>& out) const {
    for (size_t s : g.succ[from]) {
      if (std::find(path.begin(), path.end(), s) != path.end()) continue;
      path.push_back(s);
      if (is_transdata(g.nodes[s].type))
        out.push_back(path);
      else if (path.size() <= window)
        paths(s, path, out);
      path.pop_back();
    }
  }
};

}  // namespace

bool is_transdata(const std::string& type) {
  return type == "TransData" || type == "TransDataRNN";
}

bool is_reshape_class(const std::string& type) {
  static const std::set<std::string> types = {
      "Reshape",     "Flatten",   "Squeeze",   "Unsqueeze",  "ExpandDims", "SqueezeV2",
      "UnsqueezeV2", "FlattenV2", "Transpose", "TransposeD", "View",       "AsStrided"};
  return types.count(type) > 0;
}

std::vector<TransDataChain> find_transdata_chains(const OpGraph& g, size_t window) {
  std::vector<TransDataChain> out;
  std::set<size_t> paired;
  Walk walk{g, window};
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const auto& a = g.nodes[i];
    if (!is_transdata(a.type)) continue;
    std::vector<size_t> path{i};
    std::vector<std::vector<size_t>> found;
    walk.paths(i, path, found);
    for (const auto& p : found) {
      const auto& b = g.nodes[p.back()];
      if (!inverse(a, b)) continue;
      TransDataChain c;
      c.kind = "round_trip";
      c.nodes = p;
      c.transdata = {p.front(), p.back()};
      c.formats = a.in_format + ">" + a.out_format + ">" + b.out_format;
      for (size_t k = 1; k + 1 < p.size(); ++k)
        if (is_reshape_class(g.nodes[p[k]].type)) {
          c.kind = "reshape_interrupt";
          c.culprit = g.nodes[p[k]].name;
          break;
        }
      paired.insert(p.front());
      paired.insert(p.back());
      out.push_back(std::move(c));
    }
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const auto& n = g.nodes[i];
    if (!is_transdata(n.type) || paired.count(i)) continue;
    TransDataChain c;
    c.kind = single_kind(n);
    c.nodes = {i};
    c.transdata = {i};
    if (!n.in_format.empty() || !n.out_format.empty()) c.formats = n.in_format + ">" + n.out_format;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace perfsage::analyzers::patterns
