#include "collectors/kineto/json_scan.h"

#include <array>

#include "collectors/common/block_mask.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace perfsage::collectors::kineto {
namespace {

constexpr std::array<bool, 256> make_table(std::string_view chars) {
  std::array<bool, 256> t{};
  for (char c : chars) t[static_cast<unsigned char>(c)] = true;
  return t;
}
constexpr auto kScalarEnd = make_table(",]}: \t\r\n");
constexpr auto kInteresting = make_table("\"\\\n{}[]");

struct ByteMasks {
  uint64_t quote = 0, backslash = 0, newline = 0, open = 0, close = 0, separator = 0;
};

// The bytes of p[0, 64) that the scanners act on, one mask per class (SSE2 where available).
inline ByteMasks classify_64(const char* p) {
  ByteMasks m;
#if defined(__SSE2__)
  for (int k = 0; k < 64; k += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k));
    // '{' / '[' and '}' / ']' differ only in bit 0x20.
    __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
    auto bits = [&](__m128i hit) {
      return static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(hit))) << k;
    };
    m.quote |= bits(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
    m.backslash |= bits(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    m.newline |= bits(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
    m.open |= bits(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{')));
    m.close |= bits(_mm_cmpeq_epi8(folded, _mm_set1_epi8('}')));
    m.separator |= bits(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(',')), _mm_cmpeq_epi8(v, _mm_set1_epi8(':'))));
  }
#else
  for (int k = 0; k < 64; ++k) {
    const uint64_t bit = uint64_t{1} << k;
    switch (p[k]) {
      case '"':
        m.quote |= bit;
        break;
      case '\\':
        m.backslash |= bit;
        break;
      case '\n':
        m.newline |= bit;
        break;
      case '{':
      case '[':
        m.open |= bit;
        break;
      case '}':
      case ']':
        m.close |= bit;
        break;
      case ',':
      case ':':
        m.separator |= bit;
        break;
      default:
        break;
    }
  }
#endif
  return m;
}

// A byte that may follow a closing quote (the lenient string rule; ' ', '\t' and '\r' are skipped
// before it).
inline bool ends_token(char c) {
  return c == ',' || c == ':' || c == '}' || c == ']' || c == '\n';
}

// The positions of the bytes the scanner acts on (quotes, backslashes, raw newlines, brackets)
// in text[0, n), found 64 bytes at a time as a bit mask: the scanner then visits only those
// bytes instead of testing every byte of every string. Positions are asked for in increasing
// order, so each 64-byte block is classified once.
// A text still being inflated (`wait`, see json_scan.h) is read only up to what wait() has
// reported ready: has() for single bytes, and each 64-byte block before it is classified.
class Structurals {
 public:
  Structurals(std::string_view t, size_t n, const WaitForText* wait = nullptr, bool windows = true)
      : t_(t.data()),
        n_(n),
        ready_(wait && *wait ? 0 : n),
        wait_(wait && *wait ? wait : nullptr),
        windows_(windows) {}
  // False: containers are walked byte by byte only (the reference for the 64-byte windows).
  bool windows() const { return windows_; }
  const char* text() const { return t_; }
  size_t size() const { return n_; }

  // The first interesting position at or after `pos`, or n when there is none.
  size_t next(size_t pos) {
    return mask_.next(pos, n_, [this](size_t block) { return classify(block); });
  }
  // True when byte `i` exists and may be read.
  bool has(size_t i) {
    if (i < ready_) return true;
    if (i >= n_ || !wait_) return false;
    ready_ = std::min((*wait_)(i + 1), n_);
    return i < ready_;
  }

 private:
  uint64_t classify(size_t block) {
    size_t limit = n_;
    if (ready_ < std::min(block + 64, n_)) {
      has(std::min(block + 64, n_) - 1);
      limit = ready_;  // less than the block only when the text ended early
    }
    if (block + 64 <= limit) {
      const ByteMasks m = classify_64(t_ + block);
      return m.quote | m.backslash | m.newline | m.open | m.close;
    }
    uint64_t bits = 0;  // the text's last bytes
    for (size_t i = 0; i < 64 && block + i < limit; ++i)
      if (kInteresting[static_cast<unsigned char>(t_[block + i])]) bits |= uint64_t{1} << i;
    return bits;
  }

  const char* t_;
  size_t n_;
  size_t ready_;  // bytes known to be readable
  const WaitForText* wait_;
  bool windows_;
  BlockMask mask_;
};

bool is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

size_t skip_ws(Structurals& s, size_t i) {
  const char* t = s.text();
  while (s.has(i) && is_ws(t[i])) ++i;
  return i;
}

// The fast path of the container walk: 64 bytes classified at once (as simdjson's stage 1
// does), accepted only when they hold plain JSON, that is no backslash, no raw newline inside a
// string, and every closing quote directly followed by one of , : } ] or a newline. Then the
// string state follows from the quotes alone (a prefix XOR) and brackets outside strings
// change the depth. Anything else is left to the byte-wise walk and its lenient rules, which
// agree with this one on plain JSON.
struct PlainBlock {
  bool plain = false;
  bool ends_in_string = false;
  size_t close = kNoPos;  // offset of the bracket that closed the container, if in the block
};

inline uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// `depth` is updated only when the block is plain.
inline PlainBlock plain_block(const char* p, bool in_string, int& depth) {
  PlainBlock out;
  const ByteMasks m = classify_64(p);
  if (m.backslash) return out;
  // Bit k set: byte k is inside a string or is its opening quote.
  const uint64_t inside = prefix_xor(m.quote) ^ (in_string ? ~uint64_t{0} : 0);
  if (m.newline & inside) return out;
  const uint64_t closing = m.quote & ~inside;
  if ((closing << 1) & ~(m.separator | m.close | m.newline)) return out;
  if ((closing >> 63) && !ends_token(p[64])) return out;
  const uint64_t opens = m.open & ~inside, closes = m.close & ~inside;
  // A window holds a few brackets: visiting each is cheaper than counting them (no POPCNT in
  // the x86-64 baseline).
  int d = depth;
  for (uint64_t b = opens | closes; b; b &= b - 1) {
    const int k = __builtin_ctzll(b);
    d += (opens >> k) & 1 ? 1 : -1;
    if (d == 0) {
      out.plain = true;
      out.close = static_cast<size_t>(k);
      depth = 0;
      return out;
    }
  }
  out.plain = true;
  out.ends_in_string = inside >> 63;
  depth = d;
  return out;
}

// `i` is just after an opening quote; returns the position after the closing quote. A quote
// not followed by a token separator is taken as an unescaped quote inside the string, as
// written by some PyTorch versions. A raw newline ends the string (JSON forbids it there) so a
// broken line cannot swallow the following events.
size_t skip_string(Structurals& s, size_t i) {
  const char* t = s.text();
  const size_t n = s.size();
  for (;;) {
    i = s.next(i);
    if (i >= n) return kNoPos;
    char c = t[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == '\n') return i;
    if (c != '"') {  // a bracket inside the string
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (s.has(j) && (t[j] == ' ' || t[j] == '\t' || t[j] == '\r')) ++j;
    if (!s.has(j)) return i + 1;
    if (ends_token(t[j])) return i + 1;
    i = i + 1;
  }
}

// One step of the byte-wise container walk: acts on the next interesting byte at or after `i`
// and returns the position after it (kNoPos when the text ends inside a string), or sets `end`
// when the container closed.
size_t container_step(Structurals& s, size_t i, int& depth, size_t& end) {
  const char* t = s.text();
  i = s.next(i);
  if (i >= s.size()) return kNoPos;
  char c = t[i];
  if (c == '"') return skip_string(s, i + 1);
  if (c == '{' || c == '[') {
    ++depth;
  } else if (c == '}' || c == ']') {
    if (--depth == 0) end = i + 1;
  }
  return i + 1;  // also past a backslash or newline between tokens, which only strings care about
}

size_t skip_container(Structurals& s, size_t i) {
  const char* t = s.text();
  int depth = 0;
  bool in_string = false;  // a plain window may end inside a string
  size_t end = kNoPos;
  for (;;) {
    // 64 bytes at once while the text is plain JSON; the byte after them must be readable too.
    if (s.windows() && s.has(i + 64)) {
      PlainBlock b = plain_block(t + i, in_string, depth);
      if (b.plain) {
        if (b.close != kNoPos) return i + b.close + 1;
        in_string = b.ends_in_string;
        i += 64;
        continue;
      }
    }
    // Otherwise byte by byte over the next 64 bytes, with the lenient rules for strings.
    if (in_string) {
      i = skip_string(s, i);
      if (i == kNoPos) return kNoPos;
      in_string = false;
    }
    for (const size_t window_end = i + 64; i < window_end;) {
      i = container_step(s, i, depth, end);
      if (end != kNoPos) return end;
      if (i == kNoPos) return kNoPos;
    }
  }
}

size_t skip_value_n(Structurals& s, size_t i) {
  const char* t = s.text();
  if (!s.has(i)) return kNoPos;
  char c = t[i];
  if (c == '{' || c == '[') return skip_container(s, i);
  if (c == '"') return skip_string(s, i + 1);
  while (s.has(i) && !kScalarEnd[static_cast<unsigned char>(t[i])]) ++i;
  return i;
}

// Scans array elements from `i` up to `n`, calling on_element(span) for each whole element.
// Returns the position after the closing ']' or kNoPos when the text ended first; `tail`
// receives an element cut off by the end.
template <typename F>
size_t scan_elements(Structurals& s, size_t i, std::optional<Span>& tail, F&& on_element) {
  const char* t = s.text();
  const size_t n = s.size();
  for (;;) {
    while (s.has(i) && (is_ws(t[i]) || t[i] == ',')) ++i;
    if (!s.has(i)) return kNoPos;
    if (t[i] == ']') return i + 1;
    size_t start = i;
    size_t end = skip_value_n(s, i);
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
  Structurals s(text, text.size());
  return skip_value_n(s, pos);
}

void split_elements(std::string_view text, Span span, std::vector<Span>& out, bool plain_windows) {
  std::optional<Span> tail;
  Structurals s(text, span.end, nullptr, plain_windows);
  scan_elements(s, span.begin, tail, [&](Span e) { out.push_back(e); });
  if (tail) out.push_back(*tail);
}

namespace {
TraceLayout scan_document(std::string_view t, size_t chunk_bytes,
                          const std::function<void(Span)>& on_chunk, bool head_only,
                          const WaitForText& wait) {
  TraceLayout layout;
  const size_t n = t.size();
  Structurals s(t, n, &wait);
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

  size_t i = skip_ws(s, 0);
  // A UTF-8 byte-order mark is tolerated.
  if (s.has(i + 2) && t.substr(i, 3) == "\xEF\xBB\xBF") i = skip_ws(s, i + 3);
  if (!s.has(i)) {
    layout.error = {i, "a JSON object or array (the file is empty)"};
    return layout;
  }
  if (t[i] == '[') {
    if (head_only) return layout;
    layout.object_form = false;
    layout.has_events = true;
    size_t end = scan_elements(s, i + 1, layout.truncated_tail, on_element);
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
    i = skip_ws(s, i);
    if (!s.has(i)) {
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
    size_t key_end = skip_string(s, i + 1);
    if (key_end == kNoPos || key_end < i + 2) {
      layout.closed = false;
      break;
    }
    std::string key(t.substr(i + 1, key_end - i - 2));
    i = skip_ws(s, key_end);
    if (!s.has(i) || t[i] != ':') {
      if (!s.has(i)) {
        layout.closed = false;
      } else {
        layout.error = {i, "':' after key \"" + key + "\""};
      }
      break;
    }
    i = skip_ws(s, i + 1);
    if (key == "traceEvents" && s.has(i) && t[i] == '[') {
      if (head_only) return layout;
      layout.has_events = true;
      size_t end = scan_elements(s, i + 1, layout.truncated_tail, on_element);
      flush();
      if (end == kNoPos) {
        layout.closed = false;
        break;
      }
      i = end;
      continue;
    }
    size_t end = skip_value_n(s, i);
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
                       const std::function<void(Span)>& on_chunk, const WaitForText& wait) {
  return scan_document(t, chunk_bytes, on_chunk, false, wait);
}

std::vector<std::pair<std::string, Span>> scan_head_keys(std::string_view t,
                                                         const WaitForText& wait) {
  return scan_document(t, size_t{1} << 20, {}, true, wait).keys;
}

std::vector<std::pair<std::string, Span>> guess_tail_keys(std::string_view t,
                                                          const std::vector<std::string>& names,
                                                          size_t window) {
  std::vector<std::pair<std::string, Span>> out;
  const size_t n = t.size();
  const size_t from = n > window ? n - window : 0;
  Structurals s(t, n);
  for (const auto& name : names) {
    std::string quoted = "\"" + name + "\"";
    size_t at = t.substr(from).rfind(quoted);
    if (at == std::string_view::npos) continue;
    at += from;
    size_t i = skip_ws(s, at + quoted.size());
    if (i >= n || t[i] != ':') continue;
    i = skip_ws(s, i + 1);
    size_t end = skip_value_n(s, i);
    if (end == kNoPos || end == i) continue;
    out.emplace_back(name, Span{i, end});
  }
  return out;
}

}  // namespace perfsage::collectors::kineto
