// Parsing of cell values found in profiling tables and traces: nulls, integers, reals and
// decimal microsecond timestamps converted exactly to integer nanoseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace perfsage::collectors {

enum class Cell { value, null, bad };

// Empty, `N/A`, `NA`, `NaN`, `None`, `null` and `-` mean "no value".
bool is_null_cell(std::string_view s);

// Decimal integer (optionally signed, `+` allowed). Surrounding blanks are ignored.
Cell parse_int(std::string_view s, int64_t& out);
// Decimal real (from_chars syntax plus a leading `+`).
Cell parse_real(std::string_view s, double& out);
// Microseconds written in decimal (e.g. `1699529622790614.8`, `"1704161511420306.491\t"`) to
// nanoseconds, without passing through a double: 19 significant digits do not fit one. Digits
// beyond the nanosecond are rounded half away from zero. An exponent (`1.5e-3`) is accepted and
// then converted through long double. Surrounding quotes and blanks are ignored.
Cell parse_us_to_ns(std::string_view s, int64_t& out);
// Milliseconds to nanoseconds, same rules.
Cell parse_ms_to_ns(std::string_view s, int64_t& out);

// Parses `s` with `parse` (one of the functions above) into `out`: a value is stored, a null
// cell resets it; returns false only for a bad cell (then `out` is reset too).
template <class T, class Parse>
bool parse_optional(std::string_view s, std::optional<T>& out, Parse parse) {
  T v{};
  Cell c = parse(s, v);
  if (c == Cell::value)
    out = v;
  else
    out.reset();
  return c != Cell::bad;
}

// Shortcuts returning nullopt for null and bad cells alike.
std::optional<int64_t> opt_int(std::string_view s);
std::optional<double> opt_real(std::string_view s);

}  // namespace perfsage::collectors
