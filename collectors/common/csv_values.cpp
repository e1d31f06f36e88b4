#include "collectors/common/csv_values.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace perfsage::collectors {

namespace {

inline bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// Removes blanks, then one pair of surrounding quotes, then blanks again.
std::string_view strip(std::string_view s) {
  auto trim = [](std::string_view v) {
    while (!v.empty() && blank(v.front())) v.remove_prefix(1);
    while (!v.empty() && blank(v.back())) v.remove_suffix(1);
    return v;
  };
  s = trim(s);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = trim(s.substr(1, s.size() - 2));
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Decimal text times 10^scale, as an integer, rounding the digits beyond the scale.
Cell parse_scaled(std::string_view s, int scale, int64_t& out) {
  s = strip(s);
  if (is_null_cell(s)) return Cell::null;
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t v = 0;
  int digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
    if (v > (kMax - 9) / 10) return Cell::bad;
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
  }
  int frac = 0;
  bool round_up = false;
  if (i < s.size() && s[i] == '.') {
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
      if (frac < scale) {
        if (v > (kMax - 9) / 10) return Cell::bad;
        v = v * 10 + static_cast<uint64_t>(s[i] - '0');
        ++frac;
      } else if (frac == scale) {
        round_up = s[i] >= '5';
        ++frac;  // only the first extra digit decides the rounding
      }
    }
  }
  if (digits == 0) return Cell::bad;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    // Rare in profiler output; long double keeps 64 bits of mantissa.
    std::string text(s);
    char* end = nullptr;
    long double x = std::strtold(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(x)) return Cell::bad;
    x *= std::pow(10.0L, scale);
    if (std::fabs(x) >= 9.2e18L) return Cell::bad;
    out = static_cast<int64_t>(std::llroundl(x));
    return Cell::value;
  }
  if (i != s.size()) return Cell::bad;
  for (; frac < scale; ++frac) {
    if (v > kMax / 10) return Cell::bad;
    v *= 10;
  }
  if (round_up) ++v;
  if (v > kMax) return Cell::bad;
  out = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return Cell::value;
}

}  // namespace

bool is_null_cell(std::string_view s) {
  // Most cells are numbers: no null spelling starts with a digit, and strip() leaves one alone.
  if (!s.empty() && s.front() >= '0' && s.front() <= '9') return false;
  s = strip(s);
  return s.empty() || s == "-" || iequals(s, "N/A") || iequals(s, "NA") || iequals(s, "NaN") ||
         iequals(s, "None") || iequals(s, "null");
}

Cell parse_int(std::string_view s, int64_t& out) {
  s = strip(s);
  if (is_null_cell(s)) return Cell::null;
  if (s.front() == '+') s.remove_prefix(1);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || p != s.data() + s.size()) return Cell::bad;
  return Cell::value;
}

Cell parse_real(std::string_view s, double& out) {
  s = strip(s);
  if (is_null_cell(s)) return Cell::null;
  if (s.front() == '+') s.remove_prefix(1);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(out)) return Cell::bad;
  return Cell::value;
}

Cell parse_us_to_ns(std::string_view s, int64_t& out) {
  return parse_scaled(s, 3, out);
}
Cell parse_ms_to_ns(std::string_view s, int64_t& out) {
  return parse_scaled(s, 6, out);
}

std::optional<int64_t> opt_int(std::string_view s) {
  int64_t v;
  return parse_int(s, v) == Cell::value ? std::optional<int64_t>(v) : std::nullopt;
}

std::optional<double> opt_real(std::string_view s) {
  double v;
  return parse_real(s, v) == Cell::value ? std::optional<double>(v) : std::nullopt;
}

}  // namespace perfsage::collectors
