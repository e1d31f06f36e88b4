// Reading GE AttrDef values: typed look-ups by key and conversion to compact JSON or text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ge/ge_ir.pb.h"

namespace perfsage::collectors::graph {

// Attributes as the dump lists them (see AttrEntry in proto/ge/ge_ir.proto).
using AttrMap = google::protobuf::RepeatedPtrField<ge::proto::AttrEntry>;

// The value of `key`, the last one if repeated (as a map would keep it); nullptr when absent.
const ge::proto::AttrDef* find_attr(const AttrMap& attrs, std::string_view key);

// Typed look-ups; nullopt when the key is absent or holds another kind of value.
std::optional<std::string> attr_s(const AttrMap& attrs, const std::string& key);
std::optional<int64_t> attr_i(const AttrMap& attrs, const std::string& key);
std::optional<bool> attr_b(const AttrMap& attrs, const std::string& key);
std::optional<std::vector<std::string>> attr_list_s(const AttrMap& attrs, const std::string& key);

// GE data type name without the DT_ prefix ("FLOAT16"), or the number for unknown values.
std::string ge_dtype_name(int64_t dtype);

// The value as compact JSON: scalars, lists (at most `max_items` items), list_list_int.
// nullopt for bulky or nested values (tensors, graphs, named attrs) and longer lists or strings,
// which do not belong in a per-node summary.
std::optional<std::string> attr_json(const ge::proto::AttrDef& value, size_t max_items = 16,
                                     size_t max_string = 256);

// The value as plain text for graph_attrs: strings unquoted, numbers and bools as written,
// everything else as JSON (bulky values summarised by kind).
std::string attr_text(const ge::proto::AttrDef& value);

}  // namespace perfsage::collectors::graph
