#include "actions/onnx_rewrite.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <set>
#include <stdexcept>

#include "actions/onnx/passes.h"
#include "collectors/common/input_bytes.h"

namespace perfsage::actions {
namespace {

namespace ox = perfsage::onnx;
namespace pb = google::protobuf;
using PassFn = void (*)(onnx::GraphEditor&, const onnx::PassScope&, onnx::PassResult&);

struct PassEntry {
  OnnxPassInfo info;
  PassFn run;
};

const std::vector<PassEntry>& pass_table() {
  static const std::vector<PassEntry> table = {
      {{"remove_identity", true, "Identity nodes"}, onnx::remove_identity},
      {{"remove_dropout", true, "Dropout in inference mode (the identity)"}, onnx::remove_dropout},
      {{"remove_transpose", true,
        "Transposes with the identity permutation and pairs whose permutations cancel"},
       onnx::remove_transpose},
      {{"remove_cast_round_trip", false,
        "Cast to another type and back: exact when the middle type holds every value, "
        "otherwise drops a rounding step (inexact)"},
       onnx::remove_cast_round_trip},
      {{"fold_batchnorm", true,
        "BatchNormalization (inference) folded into the preceding Conv's weight and bias"},
       onnx::fold_batchnorm},
      {{"fuse_matmul_add", true, "2-D MatMul + constant row bias Add fused into Gemm"},
       onnx::fuse_matmul_add},
      {{"replace_activation", false,
        "decomposed Mish (Softplus, Tanh, Mul) replaced by a cheaper activation (inexact)"},
       onnx::replace_activation},
  };
  return table;
}

bool overlaps(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (const auto& x : a) {
    for (const auto& y : b) {
      if (x == y) return true;
    }
  }
  return false;
}

}  // namespace

const std::vector<OnnxPassInfo>& onnx_passes() {
  static const std::vector<OnnxPassInfo> infos = [] {
    std::vector<OnnxPassInfo> v;
    for (const auto& e : pass_table()) v.push_back(e.info);
    return v;
  }();
  return infos;
}

const OnnxPassInfo* find_onnx_pass(std::string_view name) {
  for (const auto& p : onnx_passes()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

OnnxRewriteReport rewrite_onnx(ox::ModelProto& model, const std::vector<OnnxRewriteStep>& steps,
                               bool allow_inexact) {
  for (const auto& s : steps) {
    if (!find_onnx_pass(s.pass)) {
      std::string known;
      for (const auto& p : onnx_passes()) known += (known.empty() ? "" : ", ") + p.name;
      throw std::invalid_argument("unknown onnx_rewrite pass '" + s.pass + "' (known: " + known +
                                  ")");
    }
  }
  OnnxRewriteReport report;
  onnx::GraphEditor editor(model);
  std::set<std::string> all_nodes(editor.node_names().begin(), editor.node_names().end());
  for (const auto& entry : pass_table()) {
    std::vector<const OnnxRewriteStep*> mine;
    for (const auto& s : steps) {
      if (s.pass == entry.info.name) mine.push_back(&s);
    }
    if (mine.empty()) continue;
    onnx::PassScope scope;
    scope.allow_inexact = allow_inexact;
    bool whole_graph = false;
    for (const auto* s : mine) {
      whole_graph = whole_graph || s->nodes.empty();
      scope.nodes.insert(s->nodes.begin(), s->nodes.end());
      if (!s->replacement.empty()) scope.replacement = s->replacement;
      if (!s->pattern.empty()) scope.pattern = s->pattern;
    }
    if (whole_graph) scope.nodes.clear();
    onnx::PassResult result;
    entry.run(editor, scope, result);

    // Each note is credited to the first step whose nodes it touches (or the whole-graph one).
    auto finding_of = [&](const std::vector<std::string>& nodes) {
      for (const auto* s : mine) {
        if (s->nodes.empty() || overlaps(s->nodes, nodes)) return s->finding;
      }
      return mine.front()->finding;
    };
    auto convert = [&](const std::vector<onnx::MatchNote>& in, std::vector<OnnxRewriteNote>& out) {
      for (const auto& n : in) {
        out.push_back({finding_of(n.nodes), entry.info.name, n.nodes, n.text, n.exact});
      }
    };
    convert(result.applied, report.applied);
    convert(result.proposed, report.proposed);
    convert(result.skipped, report.skipped);

    // A named node the pass neither changed nor explained: say so rather than stay silent.
    std::set<std::string> explained;
    for (const auto* list : {&result.applied, &result.proposed, &result.skipped}) {
      for (const auto& n : *list) explained.insert(n.nodes.begin(), n.nodes.end());
    }
    for (const auto* s : mine) {
      for (const auto& node : s->nodes) {
        if (explained.count(node)) continue;
        explained.insert(node);
        report.skipped.push_back({s->finding,
                                  entry.info.name,
                                  {node},
                                  all_nodes.count(node)
                                      ? "no " + entry.info.name + " match at this node"
                                      : "no node of this name in the model"});
      }
    }
  }
  return report;
}

ox::ModelProto read_onnx_model(const std::filesystem::path& file) {
  collectors::InputBytes bytes(file);  // mapped (or inflated, for .onnx.gz)
  auto view = bytes.view();
  pb::io::CodedInputStream coded(reinterpret_cast<const uint8_t*>(view.data()),
                                 static_cast<int>(std::min<size_t>(view.size(), INT_MAX)));
  coded.SetTotalBytesLimit(INT_MAX);
  ox::ModelProto model;
  if (view.size() > INT_MAX || !model.MergeFromCodedStream(&coded) ||
      !coded.ConsumedEntireMessage()) {
    throw std::runtime_error(file.string() + ": byte " + std::to_string(coded.CurrentPosition()) +
                             ": expected a binary ONNX ModelProto (of at most 2 GiB)");
  }
  if (!model.has_graph()) throw std::runtime_error(file.string() + ": the ONNX model has no graph");
  return model;
}

std::string serialize_onnx_model(const ox::ModelProto& model) {
  std::string out;
  pb::io::StringOutputStream stream(&out);
  pb::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  model.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

std::vector<std::string> onnx_external_files(const ox::ModelProto& model) {
  std::set<std::string> files;
  auto scan = [&](const ox::TensorProto& t) {
    if (t.data_location() != ox::TensorProto::EXTERNAL) return;
    for (const auto& kv : t.external_data()) {
      if (kv.key() == "location") files.insert(kv.value());
    }
  };
  std::function<void(const ox::GraphProto&)> walk = [&](const ox::GraphProto& g) {
    for (const auto& t : g.initializer()) scan(t);
    for (const auto& n : g.node()) {
      for (const auto& a : n.attribute()) {
        if (a.has_t()) scan(a.t());
        if (a.has_g()) walk(a.g());
        for (const auto& sg : a.graphs()) walk(sg);
      }
    }
  };
  walk(model.graph());
  return {files.begin(), files.end()};
}

}  // namespace perfsage::actions
