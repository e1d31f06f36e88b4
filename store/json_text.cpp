#include "store/json_text.h"

#include <cstdio>

namespace perfsage::store {

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

std::string json_string_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out.push_back(',');
    append_json_string(out, items[i]);
  }
  out.push_back(']');
  return out;
}

std::vector<std::string> parse_json_string_array(std::string_view t) {
  std::vector<std::string> out;
  size_t i = 0;
  auto skip_ws = [&] {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\t' || t[i] == '\r')) ++i;
  };
  skip_ws();
  if (i >= t.size() || t[i] != '[') return {};
  ++i;
  for (;;) {
    skip_ws();
    if (i >= t.size()) return {};
    if (t[i] == ']') return out;
    if (t[i] == ',') {
      ++i;
      continue;
    }
    if (t[i] != '"') return {};
    ++i;
    std::string s;
    while (i < t.size() && t[i] != '"') {
      if (t[i] == '\\' && i + 1 < t.size()) {
        char e = t[++i];
        switch (e) {
          case 'n':
            s.push_back('\n');
            break;
          case 'r':
            s.push_back('\r');
            break;
          case 't':
            s.push_back('\t');
            break;
          case 'u':
            if (i + 4 < t.size()) {
              s.push_back(
                  static_cast<char>(std::stoi(std::string(t.substr(i + 1, 4)), nullptr, 16)));
              i += 4;
            }
            break;
          default:
            s.push_back(e);
        }
      } else {
        s.push_back(t[i]);
      }
      ++i;
    }
    ++i;
    out.push_back(std::move(s));
  }
}

}  // namespace perfsage::store
