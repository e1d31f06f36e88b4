#include "engine/kb/message_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "store/json_text.h"

namespace perfsage::engine {
namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// Parses "{?name}" or "{?name:fmt}" at pos; returns the end position or npos.
size_t parse_ref(const std::string& t, size_t pos, std::string& name, std::string& fmt) {
  if (t.compare(pos, 2, "{?") != 0) return std::string::npos;
  size_t end = t.find('}', pos);
  if (end == std::string::npos) return std::string::npos;
  std::string inner = t.substr(pos + 2, end - pos - 2);
  size_t colon = inner.find(':');
  name = inner.substr(0, colon);
  fmt = colon == std::string::npos ? "" : inner.substr(colon + 1);
  if (name.empty() || name.find_first_of(" \t(){}") != std::string::npos) return std::string::npos;
  return end + 1;
}

}  // namespace

std::string format_us(double us) {
  double a = std::fabs(us);
  if (a < 1000) return fixed(us, a < 10 ? 2 : 1) + " µs";
  if (a < 1e6) return fixed(us / 1e3, 2) + " ms";
  return fixed(us / 1e6, 2) + " s";
}

std::string format_pct(double ratio) {
  double p = ratio * 100;
  return fixed(p, std::fabs(p) < 0.1 && p != 0 ? 2 : 1) + " %";
}

std::string format_bytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fixed(bytes, 0) + " B" : fixed(bytes, 1) + " " + units[u];
}

// Numbers for people: never an exponent between 1e-6 and 1e15 (no "1.273e+07" in a report),
// four significant digits below 100, whole numbers above.
std::string format_number(double v) {
  const double a = std::fabs(v);
  if (!std::isfinite(v) || a >= 1e15 || (a > 0 && a < 1e-6)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
  }
  if (v == std::floor(v) || a >= 100) return fixed(v, 0);
  int decimals = 3 - static_cast<int>(std::floor(std::log10(a)));
  std::string s = fixed(v, std::clamp(decimals, 0, 9));
  // 12.50 -> 12.5, 0.1000 -> 0.1: trailing zeros say nothing.
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string format_si(double v) {
  static const char* big[] = {"", " k", " M", " G", " T", " P", " E"};
  double a = std::fabs(v);
  if (a == 0 || !std::isfinite(v)) return format_number(v);
  if (a < 1e-3) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
  }
  int u = 0;
  while (std::fabs(v) >= 1000 && u < 6) {
    v /= 1000;
    ++u;
  }
  return fixed(v, std::fabs(v) < 10 ? 2 : 1) + big[u];
}

namespace {
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

std::string format_evidence(const std::string& key, double v) {
  if (ends_with(key, "_median")) return format_evidence(key.substr(0, key.size() - 7), v);
  if (ends_with(key, "_us")) return format_us(v);
  if (ends_with(key, "_pct")) return format_pct(v / 100);
  if (ends_with(key, "share") || ends_with(key, "ratio") || ends_with(key, "utilisation") ||
      ends_with(key, "co_occurrence"))
    return format_pct(v);
  if (ends_with(key, "bytes")) return format_bytes(v);
  if (ends_with(key, "_gbps")) return format_number(std::round(v * 100) / 100) + " GB/s";
  if (ends_with(key, "flops") || key == "achieved" || key == "attainable")
    return format_si(v) + (key == "achieved" || key == "attainable" ? "FLOP/s" : "FLOP");
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return fixed(v, 0);
  return std::fabs(v) >= 1e6 ? format_si(v) : format_number(v);
}

std::string short_name(const std::string& name) {
  constexpr size_t kMax = 100;
  std::string out;
  out.reserve(std::min(name.size(), kMax + 8));
  size_t i = 0;
  // A leading return type ("void ", "__global__ void ") is not part of the name.
  for (const char* prefix : {"__global__ ", "void "})
    if (name.compare(i, std::strlen(prefix), prefix) == 0) i += std::strlen(prefix);
  while (i < name.size()) {
    char c = name[i];
    if (c == '<') {
      // Template arguments, nested ones included, become "<...>".
      int depth = 0;
      size_t j = i;
      for (; j < name.size(); ++j) {
        if (name[j] == '<') ++depth;
        if (name[j] == '>' && --depth == 0) break;
      }
      out += "<...>";
      i = j < name.size() ? j + 1 : name.size();
      continue;
    }
    if (c == '(') {
      int depth = 0;
      size_t j = i;
      for (; j < name.size(); ++j) {
        if (name[j] == '(') ++depth;
        if (name[j] == ')' && --depth == 0) break;
      }
      // "(anonymous namespace)::" is part of a qualified name; any other group is the
      // parameter list, which ends the name.
      if (j + 2 < name.size() && name.compare(j + 1, 2, "::") == 0) {
        out.append(name, i, j + 1 - i);
        i = j + 1;
        continue;
      }
      break;
    }
    out += c;
    ++i;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.empty()) out = name;
  if (out.size() > kMax) {
    size_t cut = kMax - 3;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
    out = out.substr(0, cut) + "...";
  }
  return out;
}

std::string format_value(const clips::Value& v, const std::string& fmt) {
  if (v.type == clips::ValueType::Multifield) {
    std::string out;
    for (const auto& item : v.items) out += (out.empty() ? "" : ", ") + format_value(item, fmt);
    return out;
  }
  if (!v.is_number()) return fmt == "name" ? short_name(v.text) : v.text;
  double x = v.number();
  if (fmt == "us") return format_us(x);
  if (fmt == "ms") return format_us(x * 1e3);
  if (fmt == "s") return format_us(x * 1e6);
  if (fmt == "pct") return format_pct(x);
  if (fmt == "bytes") return format_bytes(x);
  if (fmt == "int") return fixed(std::round(x), 0);
  if (fmt == "num") return format_number(x);
  if (fmt == "si") return format_si(x);
  if (fmt == "flops") return format_si(x) + "FLOP/s";
  return v.type == clips::ValueType::Integer ? std::to_string(v.integer) : format_number(x);
}

std::vector<std::string> template_variables(const std::string& tmpl) {
  std::vector<std::string> out;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    std::string name, fmt;
    size_t end = parse_ref(tmpl, i, name, fmt);
    if (end == std::string::npos) continue;
    bool seen = false;
    for (const auto& n : out) seen |= n == name;
    if (!seen) out.push_back(name);
    i = end - 1;
  }
  return out;
}

std::string render_template(const std::string& tmpl,
                            const std::map<std::string, clips::Value>& vars) {
  std::string out;
  for (size_t i = 0; i < tmpl.size();) {
    std::string name, fmt;
    size_t end = parse_ref(tmpl, i, name, fmt);
    auto it = end == std::string::npos ? vars.end() : vars.find(name);
    if (it == vars.end()) {
      out += tmpl[i++];
      continue;
    }
    out += format_value(it->second, fmt);
    i = end;
  }
  return out;
}

std::string json_value(const clips::Value& v) {
  std::string out;
  if (v.type == clips::ValueType::Integer) return std::to_string(v.integer);
  if (v.type == clips::ValueType::Float) {
    if (!std::isfinite(v.real)) return "null";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", v.real);
    return buf;
  }
  if (v.type == clips::ValueType::Multifield) {
    out = "[";
    for (size_t i = 0; i < v.items.size(); ++i) {
      if (i) out += ',';
      out += json_value(v.items[i]);
    }
    return out + "]";
  }
  store::append_json_string(out, v.text);
  return out;
}

}  // namespace perfsage::engine
