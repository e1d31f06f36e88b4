#include "engine/kb/action_map.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include <algorithm>
#include <cstdlib>

#include "engine/kb/message_text.h"

namespace perfsage::engine {
namespace {
namespace pb = google::protobuf;

const pb::FieldDescriptor* kind_field(const std::string& kind) {
  const auto* f = perfsage::v1::Action::descriptor()->FindFieldByName(kind);
  return f && f->message_type() && f->containing_oneof() ? f : nullptr;
}

bool is_scalar_type(const pb::FieldDescriptor* f) {
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_STRING:
    case pb::FieldDescriptor::CPPTYPE_INT32:
    case pb::FieldDescriptor::CPPTYPE_INT64:
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      return true;
    default:
      return false;
  }
}

std::string field_names(const pb::Descriptor* d) {
  std::string out;
  for (int i = 0; i < d->field_count(); ++i) out += (i ? ", " : "") + d->field(i)->name();
  return out;
}

// Sets one scalar field from text; false when the text does not fit the field's type.
bool set_scalar(pb::Message& m, const pb::FieldDescriptor* f, const std::string& text) {
  const auto* r = m.GetReflection();
  char* end = nullptr;
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_STRING:
      f->is_repeated() ? r->AddString(&m, f, text) : r->SetString(&m, f, text);
      return true;
    case pb::FieldDescriptor::CPPTYPE_INT32:
    case pb::FieldDescriptor::CPPTYPE_INT64: {
      long long v = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end) return false;
      if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_INT32) {
        if (v < INT32_MIN || v > INT32_MAX) return false;
        f->is_repeated() ? r->AddInt32(&m, f, static_cast<int32_t>(v))
                         : r->SetInt32(&m, f, static_cast<int32_t>(v));
      } else {
        f->is_repeated() ? r->AddInt64(&m, f, v) : r->SetInt64(&m, f, v);
      }
      return true;
    }
    case pb::FieldDescriptor::CPPTYPE_DOUBLE: {
      double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end) return false;
      f->is_repeated() ? r->AddDouble(&m, f, v) : r->SetDouble(&m, f, v);
      return true;
    }
    case pb::FieldDescriptor::CPPTYPE_BOOL: {
      if (text != "true" && text != "false") return false;
      f->is_repeated() ? r->AddBool(&m, f, text == "true") : r->SetBool(&m, f, text == "true");
      return true;
    }
    default:
      return false;
  }
}

// A template-free sample of a param's text, to check its type before any rule fires.
bool has_template(const std::string& s) {
  return s.find("{?") != std::string::npos;
}

// The items one list entry of a repeated field gives. An entry that is a single variable,
// ["{?top}"], holding a list gives one item per element: a multifield, or a ';'-separated
// string (how facts carry lists, e.g. top_ops); anything else renders as one item.
std::vector<std::string> list_items(const std::string& item,
                                    const std::map<std::string, clips::Value>& vars) {
  auto names = template_variables(item);
  bool sole = names.size() == 1 && item.rfind("{?", 0) == 0 && item.back() == '}' &&
              item.find('}') == item.size() - 1;
  auto it = sole ? vars.find(names[0]) : vars.end();
  if (it == vars.end()) return {render_template(item, vars)};
  const std::string fmt = item.find(':') == std::string::npos
                              ? ""
                              : item.substr(item.find(':') + 1, item.size() - item.find(':') - 2);
  std::vector<std::string> out;
  if (it->second.type == clips::ValueType::Multifield) {
    for (const auto& v : it->second.items) out.push_back(format_value(v, fmt));
    return out;
  }
  std::string text = format_value(it->second, fmt);
  for (size_t start = 0; start <= text.size();) {
    size_t end = std::min(text.find(';', start), text.size());
    std::string part = text.substr(start, end - start);
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    if (!part.empty()) out.push_back(std::move(part));
    start = end + 1;
  }
  return out;
}

}  // namespace

const std::vector<std::string>& action_kind_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    const auto* oneof = perfsage::v1::Action::descriptor()->FindOneofByName("detail");
    for (int i = 0; i < oneof->field_count(); ++i) {
      if (oneof->field(i)->message_type()) out.push_back(oneof->field(i)->name());
    }
    return out;
  }();
  return names;
}

std::string check_action(const Action& action) {
  const auto* kf = kind_field(action.kind);
  if (!kf) return "unknown action kind '" + action.kind + "'";
  const auto* d = kf->message_type();
  perfsage::v1::Action probe;
  auto* sub = probe.GetReflection()->MutableMessage(&probe, kf);
  for (const auto& p : action.params) {
    const auto* f = d->FindFieldByName(p.key);
    if (!f || !is_scalar_type(f))
      return "action kind '" + action.kind + "' has no parameter '" + p.key +
             "' (it has: " + field_names(d) + ")";
    if (p.kind == ActionParam::Kind::list && !f->is_repeated())
      return "action parameter '" + p.key + "' takes one value, not a list";
    std::vector<std::string> values =
        p.kind == ActionParam::Kind::list ? p.items : std::vector<std::string>{p.text};
    for (const auto& v : values)
      if (!has_template(v) && !set_scalar(*sub, f, v))
        return "action parameter '" + p.key + "': '" + v + "' is not a valid " + f->cpp_type_name();
  }
  return "";
}

perfsage::v1::Action build_action(const Action& action,
                                  const std::map<std::string, clips::Value>& vars) {
  perfsage::v1::Action out;
  out.set_kind(action.kind);
  const auto* kf = kind_field(action.kind);
  if (!kf) return out;
  auto* sub = out.GetReflection()->MutableMessage(&out, kf);
  const auto* d = kf->message_type();
  for (const auto& p : action.params) {
    const auto* f = d->FindFieldByName(p.key);
    if (!f) continue;  // check_action refused it when the pack compiled
    std::vector<std::string> values;
    if (p.kind == ActionParam::Kind::list) {
      for (const auto& item : p.items)
        for (auto& v : list_items(item, vars)) values.push_back(std::move(v));
    } else {
      values.push_back(render_template(p.text, vars));
    }
    // A rendered value that no longer fits a number field is left unset, never invented.
    for (const auto& v : values) (void)set_scalar(*sub, f, v);
  }
  return out;
}

}  // namespace perfsage::engine
