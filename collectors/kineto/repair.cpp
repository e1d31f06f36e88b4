#include "collectors/kineto/repair.h"

#include <cctype>
#include <cstdint>

namespace perfsage::collectors::kineto {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when the bytes there are not one.
size_t utf8_len(std::string_view s, size_t i) {
  auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if ((b & 0xE0) == 0xC0) {
    n = 2;
    cp = b & 0x1F;
  } else if ((b & 0xF0) == 0xE0) {
    n = 3;
    cp = b & 0x0F;
  } else if ((b & 0xF8) == 0xF0) {
    n = 4;
    cp = b & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  // Overlong forms, surrogates and values beyond U+10FFFF are invalid too.
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
      (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
    return 0;
  return n;
}

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
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_len(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
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
