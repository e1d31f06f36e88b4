#include "collectors/kineto/repair.h"

#include <cctype>
#include <cstdint>

#include "collectors/common/utf8.h"

namespace perfsage::collectors::kineto {
namespace {

bool is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool closes_string(std::string_view s, size_t quote) {
  size_t j = quote + 1;
  while (j < s.size() && is_ws(s[j])) ++j;
  return j >= s.size() || s[j] == ',' || s[j] == ':' || s[j] == '}' || s[j] == ']';
}

bool is_literal(std::string_view w) {
  if (w == "true" || w == "false" || w == "null") return true;
  size_t i = 0;
  if (i < w.size() && w[i] == '-') ++i;
  if (i >= w.size() || !std::isdigit(static_cast<unsigned char>(w[i]))) return false;
  for (; i < w.size(); ++i) {
    char c = w[i];
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'e' && c != 'E' &&
        c != '+' && c != '-')
      return false;
  }
  return true;
}

}  // namespace

bool valid_utf8(std::string_view s) {
  return first_invalid_utf8(s) == s.size();
}

Repairs repair_event_json(std::string_view in, std::string& out) {
  Repairs r;
  out.clear();
  out.reserve(in.size() + 16);
  bool in_string = false;
  for (size_t i = 0; i < in.size();) {
    char c = in[i];
    size_t n = utf8_len(in, i);
    if (n == 0) {
      out.append("\xEF\xBF\xBD");
      r.utf8 = true;
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(in.substr(i, n));
      i += n;
      continue;
    }
    if (in_string) {
      if (c == '\\' && i + 1 < in.size()) {
        out.push_back(c);
        out.push_back(in[i + 1]);
        i += 2;
        continue;
      }
      if (c == '"') {
        if (closes_string(in, i)) {
          in_string = false;
          out.push_back(c);
        } else {
          out.append("\\\"");
          r.quotes = true;
        }
      } else if (static_cast<unsigned char>(c) < 0x20) {
        static const char* kHex = "0123456789abcdef";
        out.append("\\u00");
        out.push_back(kHex[(c >> 4) & 0xF]);
        out.push_back(kHex[c & 0xF]);
        r.control = true;
      } else {
        out.push_back(c);
      }
      ++i;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out.push_back(c);
      ++i;
      continue;
    }
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '/' || c == '.' ||
        c == '+' || c == '_') {
      // A bare token: keep JSON literals and numbers, replace anything else by null.
      size_t j = i;
      while (j < in.size() && !is_ws(in[j]) && in[j] != ',' && in[j] != '}' && in[j] != ']' &&
             in[j] != ':' && in[j] != '"' && in[j] != '{' && in[j] != '[')
        ++j;
      std::string_view word = in.substr(i, j - i);
      if (is_literal(word)) {
        out.append(word);
      } else {
        out.append("null");
        r.bare_values = true;
      }
      i = j;
      continue;
    }
    out.push_back(c);
    ++i;
  }
  if (in_string) out.push_back('"');  // close a string ended by the end of the element
  return r;
}

}  // namespace perfsage::collectors::kineto
