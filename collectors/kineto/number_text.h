// Number and JSON text helpers for trace parsing: exact decimal-µs → int64-ns conversion and
// whitespace-free JSON text for small values stored as columns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perfsage::collectors::kineto {

// Parses a JSON number (or the content of a quoted number) given in microseconds into integer
// nanoseconds without going through a double, so 19-digit epoch times keep every digit.
// Digits beyond nanoseconds are truncated. Exponent forms fall back to double arithmetic.
// Returns nullopt for non-numbers and values outside the int64 range.
std::optional<int64_t> parse_us_to_ns(std::string_view text);

// Parses an optionally signed decimal integer; nullopt on anything else or on overflow.
std::optional<int64_t> parse_int(std::string_view text);

// Parses a JSON number as a double; nullopt on anything else.
std::optional<double> parse_real(std::string_view text);

// Appends `json` without the whitespace between tokens (strings are copied untouched).
void append_compact_json(std::string& out, std::string_view json);

// Trims ASCII whitespace at both ends.
std::string_view trim(std::string_view s);

}  // namespace perfsage::collectors::kineto
