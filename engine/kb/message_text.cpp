#include "engine/kb/message_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "store/count_text.h"
#include "store/json_text.h"

namespace perfsage::engine {
namespace {

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

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string evidence_unit(const std::string& key) {
  if (ends_with(key, "_median")) return evidence_unit(key.substr(0, key.size() - 7));
  if (ends_with(key, "_us") || key == "us") return "us";
  if (ends_with(key, "_ms")) return "ms";
  if (ends_with(key, "_pct")) return "pct";
  if (ends_with(key, "share") || ends_with(key, "ratio") || ends_with(key, "_frac") ||
      ends_with(key, "utilisation") || ends_with(key, "co_occurrence"))
    return "ratio";
  // with_bytes counts ops that have a byte count
  if (ends_with(key, "bytes") && key.rfind("with_", 0) != 0) return "bytes";
  if (ends_with(key, "_gbps")) return "GB/s";
  if (ends_with(key, "flops")) return "FLOP";
  if (key == "achieved" || key == "attainable") return "FLOP/s";
  if (ends_with(key, "intensity") || key == "ridge") return "FLOP/byte";
  if (ends_with(key, "count") || key == "n" || key == "calls" || key == "ranks" || key == "steps")
    return "count";
  return "";
}

std::string format_evidence(const std::string& key, double v) {
  return store::format_quantity(v, evidence_unit(key));
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
  // count:NOUN or count:NOUN/PLURAL: "1 rank", "3 ranks".
  if (fmt.starts_with("count:")) {
    std::string_view nouns = std::string_view(fmt).substr(6);
    size_t slash = nouns.find('/');
    return store::count_text(std::llround(x), nouns.substr(0, slash),
                             slash == std::string_view::npos ? "" : nouns.substr(slash + 1));
  }
  if (fmt == "us") return format_us(x);
  if (fmt == "ms") return format_us(x * 1e3);
  if (fmt == "s") return format_us(x * 1e6);
  if (fmt == "pct") return format_pct(x);
  if (fmt == "bytes") return format_bytes(x);
  if (fmt == "int") return format_number(std::round(x));
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
