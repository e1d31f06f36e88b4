#include "collectors/graph/ge_attr_value.h"

#include "collectors/graph/json_builder.h"

namespace perfsage::collectors::graph {
namespace {
using ge::proto::AttrDef;

std::string json_str(std::string_view s) {
  std::string out;
  store::append_json_string(out, s);
  return out;
}

// Lists: GE writes exactly one of the repeated fields; val_type alone means an empty list.
std::optional<std::string> list_json(const AttrDef::ListValue& l, size_t max_items,
                                     size_t max_string) {
  JsonArray a;
  auto too_many = [&](int n) { return static_cast<size_t>(n) > max_items; };
  if (l.s_size() > 0) {
    if (too_many(l.s_size())) return std::nullopt;
    for (const auto& s : l.s()) {
      if (s.size() > max_string) return std::nullopt;
      a.str(s);
    }
  } else if (l.i_size() > 0) {
    if (too_many(l.i_size())) return std::nullopt;
    for (auto v : l.i()) a.num(v);
  } else if (l.f_size() > 0) {
    if (too_many(l.f_size())) return std::nullopt;
    for (auto v : l.f()) a.raw(json_number(v));
  } else if (l.b_size() > 0) {
    if (too_many(l.b_size())) return std::nullopt;
    for (bool v : l.b()) a.raw(v ? "true" : "false");
  } else if (l.dt_size() > 0) {
    if (too_many(l.dt_size())) return std::nullopt;
    for (auto v : l.dt()) a.str(ge_dtype_name(v));
  } else if (l.bt_size() + l.td_size() + l.t_size() + l.g_size() + l.na_size() > 0) {
    return std::nullopt;
  }
  return a.finish();
}
}  // namespace

const AttrDef* find_attr(const AttrMap& attrs, std::string_view key) {
  for (int i = attrs.size() - 1; i >= 0; --i) {
    if (attrs.Get(i).key() == key) return &attrs.Get(i).value();
  }
  return nullptr;
}

std::optional<std::string> attr_s(const AttrMap& attrs, const std::string& key) {
  const AttrDef* v = find_attr(attrs, key);
  if (!v || v->value_case() != AttrDef::kS) return std::nullopt;
  return v->s();
}

std::optional<int64_t> attr_i(const AttrMap& attrs, const std::string& key) {
  const AttrDef* v = find_attr(attrs, key);
  if (!v || v->value_case() != AttrDef::kI) return std::nullopt;
  return v->i();
}

std::optional<bool> attr_b(const AttrMap& attrs, const std::string& key) {
  const AttrDef* v = find_attr(attrs, key);
  if (!v || v->value_case() != AttrDef::kB) return std::nullopt;
  return v->b();
}

std::optional<std::vector<std::string>> attr_list_s(const AttrMap& attrs, const std::string& key) {
  const AttrDef* v = find_attr(attrs, key);
  if (!v || v->value_case() != AttrDef::kList) return std::nullopt;
  return std::vector<std::string>(v->list().s().begin(), v->list().s().end());
}

std::string ge_dtype_name(int64_t dtype) {
  if (dtype >= INT32_MIN && dtype <= INT32_MAX &&
      ge::proto::DataType_IsValid(static_cast<int>(dtype))) {
    const std::string& n = ge::proto::DataType_Name(static_cast<ge::proto::DataType>(dtype));
    return n.rfind("DT_", 0) == 0 ? n.substr(3) : n;
  }
  return std::to_string(dtype);
}

std::optional<std::string> attr_json(const AttrDef& v, size_t max_items, size_t max_string) {
  switch (v.value_case()) {
    case AttrDef::kS:
      if (v.s().size() > max_string) return std::nullopt;
      return json_str(v.s());
    case AttrDef::kI:
      return std::to_string(v.i());
    case AttrDef::kF:
      return json_number(v.f());
    case AttrDef::kB:
      return v.b() ? "true" : "false";
    case AttrDef::kDt:
      return json_str(ge_dtype_name(v.dt()));
    case AttrDef::kList:
      return list_json(v.list(), max_items, max_string);
    case AttrDef::kListListInt: {
      if (static_cast<size_t>(v.list_list_int().list_list_i_size()) > max_items)
        return std::nullopt;
      JsonArray outer;
      for (const auto& row : v.list_list_int().list_list_i()) {
        if (static_cast<size_t>(row.list_i_size()) > max_items) return std::nullopt;
        JsonArray inner;
        for (auto x : row.list_i()) inner.num(x);
        outer.raw(inner.finish());
      }
      return outer.finish();
    }
    default:
      return std::nullopt;
  }
}

std::string attr_text(const AttrDef& v) {
  switch (v.value_case()) {
    case AttrDef::kS:
      return v.s();
    case AttrDef::kBt:
      return std::string("<").append(std::to_string(v.bt().size())).append(" bytes>");
    case AttrDef::kTd:
      return "<tensor descriptor>";
    case AttrDef::kT:
      return "<tensor>";
    case AttrDef::kG:
      return "<graph " + v.g().name() + ">";
    case AttrDef::kFunc:
      return "<named attrs " + v.func().name() + ">";
    case AttrDef::VALUE_NOT_SET:
      return "";
    default:
      break;
  }
  if (auto j = attr_json(v, SIZE_MAX, SIZE_MAX)) return *j;
  return "<list>";
}

}  // namespace perfsage::collectors::graph
