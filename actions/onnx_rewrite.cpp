#include "actions/onnx_rewrite.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "actions/kind.h"
#include "actions/onnx/passes.h"
#include "proto/onnx_model.h"
#include "store/file_bytes.h"
#include "store/run_registry.h"

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
  store::InputBytes bytes(file);  // mapped (or inflated, for .onnx.gz)
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

namespace perfsage::actions {
namespace v1 = perfsage::v1;
namespace fs = std::filesystem;
namespace {

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// A file the run read, as an absolute path. Collectors record paths as the user gave them; the
// run's inputs are absolute, so a relative path is resolved against the input it came from
// (the input whose path ends with the file path's leading components).
std::string absolute_input(const store::RunRecord& run, const std::string& path) {
  fs::path p(path);
  if (p.is_absolute()) return path;
  std::vector<fs::path> parts(p.begin(), p.end());
  for (const auto& input : run.inputs) {
    fs::path in = fs::path(input).lexically_normal();
    for (size_t k = parts.size(); k > 0; --k) {
      fs::path prefix;
      for (size_t i = 0; i < k; ++i) prefix /= parts[i];
      std::string in_text = in.string(), prefix_text = prefix.string();
      if (in_text.size() > prefix_text.size() && in_text.ends_with("/" + prefix_text)) {
        fs::path base = in_text.substr(0, in_text.size() - prefix_text.size());
        if (fs::exists(base / p)) return (base / p).lexically_normal().string();
      }
    }
  }
  return fs::absolute(p).lexically_normal().string();
}

// The ONNX models the run read, in ingest order.
std::vector<std::string> onnx_models(store::Database& db, int64_t run_id) {
  auto run = store::load_run(db, run_id);
  auto st = db.prepare(
      "SELECT path FROM ingest_files WHERE run_id = ?1 AND collector = ?2 ORDER BY rowid");
  st.bind(1, run_id).bind(2, onnx_model::kCollectorName);
  std::vector<std::string> out;
  while (st.step()) out.push_back(run ? absolute_input(*run, st.text(0)) : st.text(0));
  return out;
}

class OnnxRewriteKind final : public ActionKind {
 public:
  std::string_view name() const override { return "onnx_rewrite"; }

  // One plan per model; a finding goes to the first model holding one of its nodes.
  std::vector<v1::PlannedAction> plan(
      PlanContext& ctx, const std::vector<const v1::Finding*>& findings) const override {
    auto models = onnx_models(ctx.db, ctx.source.run_id);
    if (models.empty()) {
      for (const auto* f : findings) {
        ctx.notes.push_back("finding " + f->id() +
                            ": onnx_rewrite needs the ONNX model among the run's inputs");
      }
      return {};
    }
    std::vector<v1::PlannedAction> per_model;
    std::vector<std::set<std::string>> names;
    for (const auto& m : models) {
      auto model = read_onnx_model(m);
      auto n = onnx_model::node_names(model.graph());
      names.emplace_back(n.begin(), n.end());
      per_model.push_back(ctx.make(name()));
      *per_model.back().add_inputs() = plan_input(m, "model");
    }
    for (const auto* f : findings) {
      size_t target = 0;
      for (size_t i = 0; i < models.size(); ++i) {
        bool holds = std::any_of(f->subjects().begin(), f->subjects().end(),
                                 [&](const std::string& s) { return names[i].count(s) > 0; });
        if (holds) {
          target = i;
          break;
        }
      }
      *per_model[target].add_steps() = planned_step(*f);
    }
    std::vector<v1::PlannedAction> plans;
    for (auto& p : per_model) {
      if (p.steps_size() > 0) plans.push_back(std::move(p));
    }
    return plans;
  }

  Rendered render(store::Database&, const v1::PlannedAction& plan, bool allow_inexact,
                  const fs::path& out) const override {
    Rendered r;
    const auto* in = input_with_role(plan, "model");
    if (!in)
      throw std::runtime_error("onnx_rewrite plan " + std::to_string(plan.id()) +
                               " names no model");
    auto model = read_onnx_model(in->path());
    std::vector<OnnxRewriteStep> steps;
    for (const auto& s : plan.steps()) {
      const auto& a = s.action().onnx_rewrite();
      if (!find_onnx_pass(a.pass())) {
        r.notes.push_back("finding " + s.finding() + ": unknown onnx_rewrite pass '" + a.pass() +
                          "'");
        continue;
      }
      // Nodes: the action's own list; none for a pass matching by pattern (the activation pack's
      // Mish finding describes the whole model and names a profiled op, not a graph node);
      // otherwise the finding's subjects.
      std::vector<std::string> nodes = string_list(a.nodes());
      if (nodes.empty() && a.pattern().empty()) nodes = string_list(s.subjects());
      steps.push_back({a.pass(), nodes, a.pattern(), a.replacement(), s.finding()});
    }
    auto report = rewrite_onnx(model, steps, allow_inexact);
    // Per finding: applied wins over inexact over refused; the edited nodes of every match. A
    // match counts for each finding naming one of its nodes (a round trip's second Cast, a
    // fold's Conv), not only the one it was reported under.
    auto record_for = [&](const std::string& finding, const OnnxRewriteNote& n, const char* state) {
      auto& o = r.rewrites[finding];
      if (o.state.empty() || o.state == "refused" || (o.state == "inexact" && *state == 'a'))
        o.state = state;
      if (*state != 'r') o.nodes.insert(o.nodes.end(), n.nodes.begin(), n.nodes.end());
    };
    auto record = [&](const OnnxRewriteNote& n, const char* state) {
      record_for(n.finding, n, state);
      if (*state == 'r') return;
      for (const auto& step : steps) {
        if (step.finding == n.finding) continue;
        bool named = std::any_of(step.nodes.begin(), step.nodes.end(), [&](const std::string& x) {
          return std::find(n.nodes.begin(), n.nodes.end(), x) != n.nodes.end();
        });
        if (named) record_for(step.finding, n, state);
      }
    };
    for (const auto& n : report.applied) record(n, "applied");
    for (const auto& n : report.proposed) record(n, "inexact");
    for (const auto& n : report.skipped) record(n, "refused");
    std::map<std::string, int> applied;
    for (const auto& n : report.applied) {
      ++applied[n.pass];
      r.notes.push_back("finding " + n.finding + ": " + n.text + " (" + join(n.nodes) + ")" +
                        (n.exact ? "" : " [changes outputs: --allow-inexact]"));
    }
    for (const auto& n : report.proposed) {
      r.notes.push_back("finding " + n.finding +
                        ": proposed, not applied without --allow-inexact: " + n.text + " (" +
                        join(n.nodes) + ")");
    }
    for (const auto& n : report.skipped) {
      r.notes.push_back("finding " + n.finding + ": " + n.pass + " not applied at " +
                        join(n.nodes) + ": " + n.text);
    }
    r.has_inexact =
        !report.proposed.empty() || std::any_of(report.applied.begin(), report.applied.end(),
                                                [](const auto& n) { return !n.exact; });
    if (!report.changed()) return r;
    // The input's file name: a rerun of the job with the rewritten model keeps the job's name.
    std::string file = fs::path(in->path()).filename().string();
    if (file.size() > 3 && file.ends_with(".gz")) file.resize(file.size() - 3);
    r.files.push_back({file, "model", serialize_onnx_model(model), {}});
    for (const auto& location : onnx_external_files(model)) {
      fs::path source = fs::path(in->path()).parent_path() / location;
      r.files.push_back({location, "external_data", {}, source});
    }
    std::string counts;
    for (const auto& [pass, n] : applied) {
      counts += (counts.empty() ? "" : ", ") + pass + " " + std::to_string(n);
    }
    r.usage.push_back("use " + (out / file).string() + " in place of " + in->path() + " (" +
                      counts + ")");
    return r;
  }

  // The nodes the rewrite edits (the plan's preview: a folded BatchNormalization and its Conv,
  // of which the Conv stays) still in the model graph, else those the finding named (plans made
  // before they were kept): an exact count.
  Measure measure(const VerifyContext& ctx, const v1::PlannedStep& step) const override {
    auto subjects = ctx.subjects;
    Measure m;
    if (!step.rewrite_nodes().empty()) {
      subjects.assign(step.rewrite_nodes().begin(), step.rewrite_nodes().end());
      m.metric = "nodes the rewrite edits, in the graph";
    } else {
      if (!step.action().onnx_rewrite().nodes().empty()) {
        subjects.assign(step.action().onnx_rewrite().nodes().begin(),
                        step.action().onnx_rewrite().nodes().end());
      }
      m.metric = "nodes of the finding in the graph";
    }
    m.unit = "nodes";
    m.count = true;
    if (!subjects.empty()) {
      const char* sql = "SELECT count(DISTINCT name) FROM graph_nodes WHERE run_id = ?1 AND name";
      m.before = value_over_names(ctx.db, sql, ctx.before_run, subjects);
      m.after = value_over_names(ctx.db, sql, ctx.after_run, subjects);
    }
    if (!m.before || *m.before == 0) m.before.reset();
    return m;
  }

  // A rewrite the apply left out did nothing to judge.
  std::string left_out(const v1::PlannedStep& step, bool allow_inexact) const override {
    if (step.rewrite() == "inexact" && !allow_inexact)
      return "the rewrite changes outputs and was only proposed (apply with --allow-inexact)";
    if (step.rewrite() == "refused")
      return "the pass refused every match of this finding (the plan's notes say why)";
    return "";
  }
};

}  // namespace

const ActionKind& onnx_rewrite_kind() {
  static const OnnxRewriteKind kind;
  return kind;
}

}  // namespace perfsage::actions
