#include "actions/aoe.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "actions/kind.h"
#include "proto/onnx_model.h"
#include "store/json_text.h"

namespace perfsage::actions {
namespace {

struct OpRow {
  std::string name, type, core_type;
  int64_t count = 0;
  double total_us = 0;
};

// AOE tunes AI Core and AI Vector Core kernels; AI CPU, communication and DMA tasks it cannot.
bool tunable(const std::string& core_type) {
  return core_type == "AI_CORE" || core_type == "AI_VECTOR_CORE" || core_type == "MIX_AIC" ||
         core_type == "MIX_AIV";
}

}  // namespace

std::vector<std::string> split_op_names(const std::vector<std::string>& ops) {
  std::vector<std::string> out;
  for (const auto& item : ops) {
    size_t start = 0;
    while (start <= item.size()) {
      size_t comma = item.find_first_of(",;", start);
      if (comma == std::string::npos) comma = item.size();
      std::string op = item.substr(start, comma - start);
      op.erase(0, op.find_first_not_of(" \t"));
      op.erase(op.find_last_not_of(" \t") + 1);
      if (!op.empty()) out.push_back(op);
      start = comma + 1;
    }
  }
  return out;
}

AoePlan plan_aoe(store::Database& db, int64_t run_id, const std::vector<AoeRequest>& requests) {
  std::map<std::string, OpRow> by_name;
  std::map<std::string, std::vector<std::string>> by_type;
  auto st = db.prepare(
      "SELECT name, max(type), max(core_type), sum(count), sum(total_us) FROM op_stats "
      "WHERE run_id = ?1 GROUP BY name");
  st.bind(1, run_id);
  while (st.step()) {
    OpRow r{st.text(0), st.text(1), st.text(2), st.int64(3), st.real(4)};
    by_type[r.type].push_back(r.name);
    by_name[r.name] = std::move(r);
  }

  AoePlan plan;
  std::map<std::string, AoeOp> chosen;
  std::set<std::string> noted;
  for (const auto& req : requests) {
    plan.subgraph = plan.subgraph || req.job_type == 1 || req.job_type == 0;
    plan.operators = plan.operators || req.job_type == 2 || req.job_type == 0;
    std::vector<const OpRow*> rows;
    for (const auto& op : split_op_names(req.ops)) {
      if (auto it = by_name.find(op); it != by_name.end()) {
        rows.push_back(&it->second);
      } else if (auto t = by_type.find(op); t != by_type.end()) {
        for (const auto& name : t->second) rows.push_back(&by_name[name]);
      } else if (noted.insert(op).second) {
        plan.notes.push_back(op + ": no operator or operator type of this name in the run");
      }
    }
    std::vector<const OpRow*> kept;
    for (const auto* r : rows) {
      if (tunable(r->core_type)) {
        kept.push_back(r);
      } else if (noted.insert(r->name).second) {
        plan.notes.push_back(r->name + " runs on " + r->core_type + ", which AOE does not tune");
      }
    }
    double time = 0;
    for (const auto* r : kept) time += r->total_us;
    for (const auto* r : kept) {
      auto& op = chosen[r->name];
      op.name = r->name;
      op.type = r->type;
      op.core_type = r->core_type;
      op.count = r->count;
      op.total_us = r->total_us;
      // The finding's gain split by the ops' time, and never more than an op's own time: a
      // finding may estimate its gain over more ops than it names.
      double part = time > 0 ? req.gain_us * r->total_us / time : req.gain_us / kept.size();
      op.gain_us = std::min(op.gain_us + part, r->total_us);
      if (std::find(op.findings.begin(), op.findings.end(), req.finding) == op.findings.end()) {
        op.findings.push_back(req.finding);
        if (!req.reason.empty()) op.reasons.push_back(req.reason);
      }
    }
    if (!kept.empty()) plan.findings.push_back(req.finding);
  }
  for (auto& [name, op] : chosen) plan.ops.push_back(std::move(op));
  std::sort(plan.ops.begin(), plan.ops.end(), [](const AoeOp& a, const AoeOp& b) {
    if (a.gain_us != b.gain_us) return a.gain_us > b.gain_us;
    if (a.total_us != b.total_us) return a.total_us > b.total_us;
    return a.name < b.name;
  });
  return plan;
}

std::string render_tune_ops_file(const AoePlan& plan) {
  std::vector<std::string> names;
  for (const auto& op : plan.ops) names.push_back(op.name);
  return "{\"tune_ops_name\": " + store::json_string_array(names) + "}\n";
}

AoeTarget aoe_target(store::Database& db, int64_t run_id) {
  AoeTarget t;
  auto run = db.prepare("SELECT coalesce(framework, '') FROM runs WHERE id = ?1");
  run.bind(1, run_id);
  if (run.step()) t.framework = run.text(0);
  auto model = db.prepare(
      "SELECT path FROM ingest_files WHERE run_id = ?1 AND collector = ?2 LIMIT 1");
  model.bind(1, run_id).bind(2, onnx_model::kCollectorName);
  if (model.step()) t.model = model.text(0);
  return t;
}

std::vector<std::string> aoe_commands(const AoePlan& plan, const AoeTarget& target,
                                      const std::string& tune_ops_file) {
  std::vector<std::string> out;
  bool subgraph = plan.subgraph, operators = plan.operators || !plan.ops.empty();
  if (target.model) {
    // An offline model: AOE reads it directly (--framework=5 is ONNX).
    if (subgraph) {
      out.push_back("aoe --framework=5 --model=" + *target.model + " --job_type=1");
    }
    if (operators) {
      out.push_back("aoe --framework=5 --model=" + *target.model + " --job_type=2");
    }
    return out;
  }
  // Training or online inference: tune in the framework's own run, or from a graph dump.
  if (subgraph) out.push_back("export AOE_MODE=1   # subgraph tuning on the next run");
  if (operators) {
    out.push_back("export AOE_MODE=2   # operator tuning on the next run");
    out.push_back("aoe --job_type=2 --model_path=<graph dump folder> --tune_ops_file=" +
                  tune_ops_file + "   # offline, only the listed operators");
  }
  if (target.framework == "ge" || target.framework.empty()) {
    out.push_back("TensorFlow: session option aoe_mode=\"2\" (operator) or \"1\" (subgraph)");
    out.push_back(
        "MindSpore: set_context(aoe_tune_mode=\"online\", aoe_config={\"job_type\": \"2\"})");
  }
  return out;
}

}  // namespace perfsage::actions

namespace perfsage::actions {
namespace v1 = perfsage::v1;
namespace {

class AoeKind final : public ActionKind {
 public:
  std::string_view name() const override { return "aoe"; }

  Rendered render(store::Database& db, const v1::PlannedAction& plan, bool,
                  const std::filesystem::path& out) const override {
    Rendered r;
    std::vector<AoeRequest> requests;
    for (const auto& s : plan.steps()) {
      const auto& a = s.action().aoe();
      auto ops = a.ops().empty() ? string_list(s.subjects()) : string_list(a.ops());
      requests.push_back({ops, a.job_type(), s.estimated_gain_us(), s.title(), s.finding()});
    }
    auto aoe = plan_aoe(db, plan.run_id(), requests);
    r.notes = aoe.notes;
    if (aoe.ops.empty()) {
      r.notes.push_back("no operator AOE can tune: nothing to write");
      return r;
    }
    for (size_t i = 0; i < aoe.ops.size(); ++i) {
      const auto& op = aoe.ops[i];
      char line[256];
      std::snprintf(line, sizeof line, "%zu. %s (%s, %s): %.1f us in the run, est. gain %.1f us",
                    i + 1, op.name.c_str(), op.type.c_str(), op.core_type.c_str(), op.total_us,
                    op.gain_us);
      r.notes.push_back(line);
    }
    auto file = out / "aoe_tune_ops.cfg";
    r.files.push_back({"aoe_tune_ops.cfg", "tune_ops", render_tune_ops_file(aoe), {}});
    r.usage = aoe_commands(aoe, aoe_target(db, plan.run_id()), file.string());
    r.usage.push_back(
        "AOE documentation: tune with profiling off; AOE needs at least 20 GB of disk and 32 GB "
        "of memory");
    return r;
  }

  // The time of the ops the finding named and of the AOE action's op list.
  Measure measure(const VerifyContext& ctx, const v1::PlannedStep& step) const override {
    auto ops = ctx.subjects;
    auto more = split_op_names(string_list(step.action().aoe().ops()));
    ops.insert(ops.end(), more.begin(), more.end());
    return time_measure(ctx, ops);
  }
};

}  // namespace

const ActionKind& aoe_kind() {
  static const AoeKind kind;
  return kind;
}

}  // namespace perfsage::actions
