#include "collectors/common/csv_reader.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace perfsage::collectors {

namespace {
inline bool blank(char c) {
  return c == ' ' || c == '\t';
}
}  // namespace

std::string_view trim_blanks(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (blank(s[b]) || s[b] == '\r' || s[b] == '\n')) ++b;
  while (e > b && (blank(s[e - 1]) || s[e - 1] == '\r' || s[e - 1] == '\n')) --e;
  return s.substr(b, e - b);
}

std::string to_lower_ascii(std::string_view s) {
  std::string out(s);
  for (auto& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

CsvReader::CsvReader(std::string_view data, char separator, Start start)
    : data_(data), sep_(separator) {
  if (start == Start::file && data_.size() >= 3 &&
      std::memcmp(data_.data(), "\xEF\xBB\xBF", 3) == 0)
    pos_ = 3;
}

bool CsvReader::next() {
  for (;;) {
    if (pos_ >= data_.size()) return false;
    read_record();
    // A blank line is not a record.
    if (spans_.size() == 1 && fields_[0].empty() && error_.empty()) continue;
    return true;
  }
}

uint64_t CsvReader::classify(size_t block) const {
  const char* d = data_.data();
  const size_t n = data_.size();
  uint64_t bits = 0;
  size_t i = 0;
#if defined(__SSE2__)
  if (block + 64 <= n) {
    const __m128i sep = _mm_set1_epi8(sep_), quote = _mm_set1_epi8('"');
    const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    for (; i < 64; i += 16) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + block + i));
      __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, sep), _mm_cmpeq_epi8(v, quote));
      hit = _mm_or_si128(hit, _mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)));
      bits |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(hit))) << i;
    }
    return bits;
  }
#endif
  for (; i < 64 && block + i < n; ++i) {
    char c = d[block + i];
    if (c == sep_ || c == '"' || c == '\n' || c == '\r') bits |= uint64_t{1} << i;
  }
  return bits;
}

size_t CsvReader::next_special(size_t pos) {
  return mask_.next(pos, data_.size(), [this](size_t block) { return classify(block); });
}

size_t CsvReader::field_end(size_t pos) {
  const char* d = data_.data();
  const size_t n = data_.size();
  for (;; ++pos) {  // a quote inside an unquoted field is data
    pos = next_special(pos);
    if (pos >= n || d[pos] != '"') return pos;
  }
}

void CsvReader::read_record() {
  const char* d = data_.data();
  const size_t n = data_.size();
  record_offset_ = pos_;
  line_ = next_line_;
  spans_.clear();
  scratch_.clear();
  error_.clear();
  size_t p = pos_;
  for (;;) {
    while (p < n && blank(d[p])) ++p;
    Span span{p, 0, false};
    if (p < n && d[p] == '"') {
      // Quoted field: runs to the next quote that is not doubled.
      size_t start = ++p;
      for (;;) {
        size_t qe = p;
        for (;; ++qe) {  // the next quote, counting the line feeds before it
          qe = next_special(qe);
          if (qe >= n || d[qe] == '"') break;
          next_line_ += d[qe] == '\n';
        }
        if (qe >= n) {
          error_ = "unterminated quoted field";  // the caller names the record's line
          if (span.scratch) {
            scratch_.append(d + start, n - start);
            span.len = scratch_.size() - span.begin;
          } else {
            span = {start, n - start, false};
          }
          p = n;
          break;
        }
        if (qe + 1 < n && d[qe + 1] == '"') {  // doubled quote: one literal quote
          if (!span.scratch) span = {scratch_.size(), 0, true};
          scratch_.append(d + start, qe + 1 - start);
          p = start = qe + 2;
          continue;
        }
        if (span.scratch) {
          scratch_.append(d + start, qe - start);
          span.len = scratch_.size() - span.begin;
        } else {
          span = {start, qe - start, false};
        }
        p = qe + 1;
        break;
      }
      // Text between the closing quote and the separator is not RFC 4180; keep it.
      size_t tail = p;
      p = field_end(p);
      std::string_view extra = trim_blanks(std::string_view(d + tail, p - tail));
      if (!extra.empty()) {
        if (!span.scratch) {
          size_t b = scratch_.size();
          scratch_.append(d + span.begin, span.len);
          span = {b, span.len, true};
        }
        scratch_.append(extra);
        span.len = scratch_.size() - span.begin;
      }
    } else {
      size_t b = p;
      p = field_end(p);
      span = {b, p - b, false};
    }
    spans_.push_back(span);
    if (p >= n) break;
    if (d[p] == sep_) {
      ++p;
      continue;
    }
    // End of line: \n, \r\n or a lone \r.
    if (d[p] == '\r') ++p;
    if (p < n && d[p] == '\n') ++p;
    ++next_line_;
    break;
  }
  pos_ = p;
  fields_.clear();
  if (scratch_.empty()) {  // every field lies in the input: no view can move
    for (const auto& s : spans_) fields_.push_back(trim_blanks(data_.substr(s.begin, s.len)));
    return;
  }
  for (const auto& s : spans_) {
    std::string_view v = s.scratch ? std::string_view(scratch_).substr(s.begin, s.len)
                                   : data_.substr(s.begin, s.len);
    fields_.push_back(trim_blanks(v));
  }
}

CsvHeader::CsvHeader(const std::vector<std::string_view>& fields) {
  for (auto f : fields) {
    names_.emplace_back(trim_blanks(f));
    lower_.push_back(to_lower_ascii(names_.back()));
  }
}

std::optional<size_t> CsvHeader::find(std::string_view name) const {
  std::string key = to_lower_ascii(trim_blanks(name));
  for (size_t i = 0; i < lower_.size(); ++i) {
    if (lower_[i] == key) return i;
  }
  return std::nullopt;
}

std::optional<size_t> CsvHeader::find_any(std::initializer_list<std::string_view> names) const {
  for (auto n : names) {
    if (auto i = find(n)) return i;
  }
  return std::nullopt;
}

}  // namespace perfsage::collectors
