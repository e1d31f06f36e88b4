#include "collectors/kineto/number_text.h"

#include <charconv>
#include <cstdlib>
#include <limits>

namespace perfsage::collectors::kineto {

std::string_view trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\n' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\n' || s[e - 1] == '\r'))
    --e;
  return s.substr(b, e - b);
}

std::optional<int64_t> parse_int(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

std::optional<double> parse_real(std::string_view text) {
  text = trim(text);
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

std::optional<int64_t> parse_us_to_ns(std::string_view text) {
  text = trim(text);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    text = trim(text.substr(1, text.size() - 2));
  }
  if (text.empty()) return std::nullopt;
  // Exponent forms ("1.5e3") are rare: tried only when the decimal reading fails, so plain
  // times are not searched for an 'e' first.
  auto exponent_form = [text]() -> std::optional<int64_t> {
    if (text.find_first_of("eE") == std::string_view::npos) return std::nullopt;
    auto d = parse_real(text);
    if (!d) return std::nullopt;
    double ns = *d * 1000.0;
    if (!(ns > -9.2e18 && ns < 9.2e18)) return std::nullopt;
    return static_cast<int64_t>(ns);
  };
  size_t i = 0;
  bool neg = false;
  if (text[0] == '-' || text[0] == '+') {
    neg = text[0] == '-';
    i = 1;
  }
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t whole = 0;
  size_t digits = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
    if (whole > kMax / 10) return exponent_form();
    whole = whole * 10 + static_cast<uint64_t>(text[i] - '0');
  }
  uint64_t frac = 0;
  size_t frac_digits = 0;
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
      if (frac_digits < 3) {
        frac = frac * 10 + static_cast<uint64_t>(text[i] - '0');
        ++frac_digits;
      }
    }
  }
  if (i != text.size() || digits == 0) return exponent_form();
  while (frac_digits < 3) {
    frac *= 10;
    ++frac_digits;
  }
  if (whole > (kMax - frac) / 1000) return exponent_form();
  int64_t ns = static_cast<int64_t>(whole * 1000 + frac);
  return neg ? -ns : ns;
}

void append_compact_json(std::string& out, std::string_view json) {
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < json.size()) {
        out.push_back(json[++i]);
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
      out.push_back(c);
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      out.push_back(c);
    }
  }
}

}  // namespace perfsage::collectors::kineto
