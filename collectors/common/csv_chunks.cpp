#include "collectors/common/csv_chunks.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace perfsage::collectors {
namespace {

// Occurrences of `c` in [p, end): 16 bytes per step where SSE2 is there (it always is on
// x86-64); the scalar loop elsewhere.
size_t count_byte(const char* p, const char* end, char c) {
  size_t n = 0;
#if defined(__SSE2__)
  // Per-byte counters (a match compares to -1, subtracted: +1), summed before they can wrap.
  const __m128i needle = _mm_set1_epi8(c);
  while (end - p >= 16) {
    __m128i counts = _mm_setzero_si128();
    for (int i = 0; i < 255 && end - p >= 16; ++i, p += 16) {
      __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      counts = _mm_sub_epi8(counts, _mm_cmpeq_epi8(block, needle));
    }
    __m128i sums = _mm_sad_epu8(counts, _mm_setzero_si128());
    n += static_cast<size_t>(_mm_cvtsi128_si64(sums)) +
         static_cast<size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; p < end; ++p) n += *p == c;
  return n;
}

bool has_lone_cr(std::string_view data, size_t begin) {
  const char* d = data.data();
  const size_t n = data.size();
  for (size_t p = begin; p < n;) {
    const void* cr = std::memchr(d + p, '\r', n - p);
    if (cr == nullptr) return false;
    p = static_cast<size_t>(static_cast<const char*>(cr) - d) + 1;
    if (p == n || d[p] != '\n') return true;
  }
  return false;
}

}  // namespace

std::vector<CsvChunk> split_csv_records(std::string_view data, size_t begin, size_t first_line,
                                        size_t target) {
  const char* d = data.data();
  const size_t n = data.size();
  std::vector<CsvChunk> chunks;
  if (begin >= n) return chunks;
  target = std::max<size_t>(target, 1);
  if (n - begin <= target || has_lone_cr(data, begin)) {
    chunks.push_back({begin, n, first_line});
    return chunks;
  }
  size_t pos = begin, line = first_line;
  while (pos < n) {
    size_t end = n;
    if (n - pos > target) {
      // Quote parity at the tentative end tells whether it lies inside a quoted field ("" is
      // two quotes and keeps the parity); the chunk then runs to the next line feed outside.
      size_t at = pos + target;
      bool quoted = count_byte(d + pos, d + at, '"') % 2 != 0;
      for (; at < n; ++at) {
        if (d[at] == '"') {
          quoted = !quoted;
        } else if (d[at] == '\n' && !quoted) {
          break;
        }
      }
      end = at < n ? at + 1 : n;
    }
    chunks.push_back({pos, end, line});
    line += count_byte(d + pos, d + end, '\n');
    pos = end;
  }
  return chunks;
}

}  // namespace perfsage::collectors
