#include "collectors/kineto/json_scan.h"

#include <array>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace perfsage::collectors::kineto {
namespace {

// Byte classes for the two hot loops: inside a string and between tokens.
constexpr std::array<bool, 256> make_table(std::string_view chars) {
  std::array<bool, 256> t{};
  for (char c : chars) t[static_cast<unsigned char>(c)] = true;
  return t;
}
constexpr auto kStringStop = make_table("\"\\\n");
constexpr auto kStructural = make_table("\"{}[]");
constexpr auto kScalarEnd = make_table(",]}: \t\r\n");

// Advances `i` to the first byte of class `table` (one of `chars`, at most 5 of them), 16 bytes
// at a time with SSE2 where available; the scalar loop finishes the tail.
template <char... Chars>
size_t find_class(std::string_view t, size_t i, size_t n, const std::array<bool, 256>& table) {
#if defined(__SSE2__)
  while (i + 16 <= n) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data() + i));
    __m128i hit = _mm_setzero_si128();
    ((hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, _mm_set1_epi8(Chars)))), ...);
    int mask = _mm_movemask_epi8(hit);
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    i += 16;
  }
#endif
  while (i < n && !table[static_cast<unsigned char>(t[i])]) ++i;
  return i;
}

bool is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

size_t skip_ws(std::string_view t, size_t i, size_t n) {
  while (i < n && is_ws(t[i])) ++i;
  return i;
}

// `i` is just after an opening quote; returns the position after the closing quote. A quote
// not followed by a token separator is taken as an unescaped quote inside the string, as
// written by some PyTorch versions. A raw newline ends the string (JSON forbids it there) so a
// broken line cannot swallow the following events.
size_t skip_string(std::string_view t, size_t i, size_t n) {
  for (;;) {
    i = find_class<'"', '\\', '\n'>(t, i, n, kStringStop);
    if (i >= n) return kNoPos;
    char c = t[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == '\n') return i;
    size_t j = i + 1;
    while (j < n && (t[j] == ' ' || t[j] == '\t' || t[j] == '\r')) ++j;
    if (j >= n) return i + 1;
    char d = t[j];
    if (d == ',' || d == ':' || d == '}' || d == ']' || d == '\n') return i + 1;
    i = i + 1;
  }
}

size_t skip_container(std::string_view t, size_t i, size_t n) {
  int depth = 0;
  while (i < n) {
    i = find_class<'"', '{', '}', '[', ']'>(t, i, n, kStructural);
    if (i >= n) break;
    char c = t[i];
    if (c == '"') {
      i = skip_string(t, i + 1, n);
      if (i == kNoPos) return kNoPos;
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
    } else if (--depth == 0) {
      return i + 1;
    }
    ++i;
  }
  return kNoPos;
}

size_t skip_value_n(std::string_view t, size_t i, size_t n) {
  if (i >= n) return kNoPos;
  char c = t[i];
  if (c == '{' || c == '[') return skip_container(t, i, n);
  if (c == '"') return skip_string(t, i + 1, n);
  while (i < n && !kScalarEnd[static_cast<unsigned char>(t[i])]) ++i;
  return i;
}

// Scans array elements from `i` up to `n`, calling on_element(span) for each whole element.
// Returns the position after the closing ']' or kNoPos when the text ended first; `tail`
// receives an element cut off by the end.
template <typename F>
size_t scan_elements(std::string_view t, size_t i, size_t n, std::optional<Span>& tail,
                     F&& on_element) {
  for (;;) {
    while (i < n && (is_ws(t[i]) || t[i] == ',')) ++i;
    if (i >= n) return kNoPos;
    if (t[i] == ']') return i + 1;
    size_t start = i;
    size_t end = skip_value_n(t, i, n);
    if (end == kNoPos) {
      tail = Span{start, n};
      return kNoPos;
    }
    if (end == start) end = start + 1;  // a stray byte such as '}' : one bad element
    on_element(Span{start, end});
    i = end;
  }
}

}  // namespace

size_t skip_value(std::string_view text, size_t pos) {
  return skip_value_n(text, pos, text.size());
}

void split_elements(std::string_view text, Span span, std::vector<Span>& out) {
  std::optional<Span> tail;
  scan_elements(text, span.begin, span.end, tail, [&](Span s) { out.push_back(s); });
  if (tail) out.push_back(*tail);
}

namespace {
TraceLayout scan_document(std::string_view t, size_t chunk_bytes,
                          const std::function<void(Span)>& on_chunk, bool head_only) {
  TraceLayout layout;
  const size_t n = t.size();
  Span chunk{kNoPos, kNoPos};
  auto on_element = [&](Span s) {
    ++layout.elements;
    if (chunk.begin == kNoPos) chunk.begin = s.begin;
    chunk.end = s.end;
    if (chunk.size() >= chunk_bytes) {
      layout.chunks.push_back(chunk);
      if (on_chunk) on_chunk(chunk);
      chunk = Span{kNoPos, kNoPos};
    }
  };
  auto flush = [&] {
    if (chunk.begin != kNoPos) {
      layout.chunks.push_back(chunk);
      if (on_chunk) on_chunk(chunk);
    }
    chunk = Span{kNoPos, kNoPos};
  };

  size_t i = skip_ws(t, 0, n);
  // A UTF-8 byte-order mark is tolerated.
  if (t.substr(i, 3) == "\xEF\xBB\xBF") i = skip_ws(t, i + 3, n);
  if (i >= n) {
    layout.error = {i, "a JSON object or array (the file is empty)"};
    return layout;
  }
  if (t[i] == '[') {
    if (head_only) return layout;
    layout.object_form = false;
    layout.has_events = true;
    size_t end = scan_elements(t, i + 1, n, layout.truncated_tail, on_element);
    flush();
    // The Chrome array form allows the closing ']' to be missing.
    layout.closed = end != kNoPos;
    return layout;
  }
  if (t[i] != '{') {
    layout.error = {i, "'{' or '[' at the start of the trace"};
    return layout;
  }
  ++i;
  for (;;) {
    i = skip_ws(t, i, n);
    if (i >= n) {
      layout.closed = false;
      break;
    }
    if (t[i] == '}') break;
    if (t[i] == ',') {
      ++i;
      continue;
    }
    if (t[i] != '"') {
      layout.error = {i, "a quoted key in the top-level object"};
      break;
    }
    size_t key_end = skip_string(t, i + 1, n);
    if (key_end == kNoPos || key_end < i + 2) {
      layout.closed = false;
      break;
    }
    std::string key(t.substr(i + 1, key_end - i - 2));
    i = skip_ws(t, key_end, n);
    if (i >= n || t[i] != ':') {
      if (i >= n) {
        layout.closed = false;
      } else {
        layout.error = {i, "':' after key \"" + key + "\""};
      }
      break;
    }
    i = skip_ws(t, i + 1, n);
    if (key == "traceEvents" && i < n && t[i] == '[') {
      if (head_only) return layout;
      layout.has_events = true;
      size_t end = scan_elements(t, i + 1, n, layout.truncated_tail, on_element);
      flush();
      if (end == kNoPos) {
        layout.closed = false;
        break;
      }
      i = end;
      continue;
    }
    size_t end = skip_value_n(t, i, n);
    if (end == kNoPos) {
      layout.closed = false;
      break;
    }
    layout.keys.emplace_back(std::move(key), Span{i, end});
    i = end;
  }
  return layout;
}
}  // namespace

TraceLayout scan_trace(std::string_view t, size_t chunk_bytes,
                       const std::function<void(Span)>& on_chunk) {
  return scan_document(t, chunk_bytes, on_chunk, false);
}

std::vector<std::pair<std::string, Span>> scan_head_keys(std::string_view t) {
  return scan_document(t, size_t{1} << 20, {}, true).keys;
}

std::vector<std::pair<std::string, Span>> guess_tail_keys(std::string_view t,
                                                          const std::vector<std::string>& names,
                                                          size_t window) {
  std::vector<std::pair<std::string, Span>> out;
  const size_t n = t.size();
  const size_t from = n > window ? n - window : 0;
  for (const auto& name : names) {
    std::string quoted = "\"" + name + "\"";
    size_t at = t.substr(from).rfind(quoted);
    if (at == std::string_view::npos) continue;
    at += from;
    size_t i = skip_ws(t, at + quoted.size(), n);
    if (i >= n || t[i] != ':') continue;
    i = skip_ws(t, i + 1, n);
    size_t end = skip_value_n(t, i, n);
    if (end == kNoPos || end == i) continue;
    out.emplace_back(name, Span{i, end});
  }
  return out;
}

}  // namespace perfsage::collectors::kineto
