// The action kinds, registered once: adding a kind is its own files and one line in kinds().
#include <google/protobuf/descriptor.h>

#include <filesystem>

#include "actions/aoe.h"
#include "actions/code_hint.h"
#include "actions/env_file.h"
#include "actions/files.h"
#include "actions/fusion_switch.h"
#include "actions/kind.h"
#include "actions/onnx_rewrite.h"

namespace perfsage::actions {
namespace fs = std::filesystem;
namespace v1 = perfsage::v1;

const std::vector<const ActionKind*>& action_kinds() {
  static const std::vector<const ActionKind*> kinds = {
      &fusion_switch_kind(), &aoe_kind(), &onnx_rewrite_kind(), &env_file_kind(), &code_hint_kind(),
  };
  return kinds;
}

const ActionKind* find_action_kind(std::string_view name) {
  for (const auto* k : action_kinds()) {
    if (k->name() == name) return k;
  }
  return nullptr;
}

std::string action_kind_of(const v1::Action& a) {
  if (!a.kind().empty()) return a.kind();
  const auto* oneof = v1::Action::descriptor()->FindOneofByName("detail");
  const auto* field = a.GetReflection()->GetOneofFieldDescriptor(a, oneof);
  return field ? field->name() : "";
}

v1::PlannedAction PlanContext::make(std::string_view kind) const {
  v1::PlannedAction p;
  p.set_run_id(source.run_id);
  p.set_job(source.job);
  p.set_kind(std::string(kind));
  p.set_created(source.created);
  return p;
}

std::vector<v1::PlannedAction> ActionKind::plan(
    PlanContext& ctx, const std::vector<const v1::Finding*>& findings) const {
  auto p = ctx.make(name());
  for (const auto* f : findings) *p.add_steps() = planned_step(*f);
  return {std::move(p)};
}

Measure ActionKind::measure(const VerifyContext& ctx, const v1::PlannedStep&) const {
  return time_measure(ctx, ctx.subjects);
}

std::string ActionKind::left_out(const v1::PlannedStep&, bool) const {
  return "";
}

v1::PlannedStep planned_step(const v1::Finding& f) {
  v1::PlannedStep s;
  s.set_finding(f.id());
  s.set_pack(f.pack());
  s.set_rule(f.rule());
  s.set_title(f.title());
  s.set_estimated_gain_us(f.estimated_gain_us());
  *s.mutable_subjects() = f.subjects();
  *s.mutable_action() = f.action();
  return s;
}

v1::ActionFile plan_input(const std::string& path, const std::string& role) {
  v1::ActionFile f;
  f.set_path(path);
  f.set_role(role);
  f.set_bytes(static_cast<int64_t>(fs::file_size(path)));
  f.set_sha256(sha256_file(path));
  return f;
}

const v1::ActionFile* input_with_role(const v1::PlannedAction& plan, const std::string& role) {
  for (const auto& f : plan.inputs()) {
    if (f.role() == role) return &f;
  }
  return nullptr;
}

std::vector<std::string> string_list(const google::protobuf::RepeatedPtrField<std::string>& r) {
  return {r.begin(), r.end()};
}

}  // namespace perfsage::actions
