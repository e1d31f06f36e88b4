// Minimal JSON text helpers for the small JSON columns of the store (lists and flat objects).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace perfsage::store {

// Appends `s` as a JSON string literal (with quotes) to `out`.
void append_json_string(std::string& out, std::string_view s);
std::string json_string_array(const std::vector<std::string>& items);
// Parses a JSON array of strings written by json_string_array; returns empty on anything else.
std::vector<std::string> parse_json_string_array(std::string_view text);

}  // namespace perfsage::store
