#include "collectors/common/csv_chunks.h"

#include <algorithm>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace perfsage::collectors {

// 16 bytes per step where SSE2 is there (it always is on x86-64); the scalar loop elsewhere.
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

CsvChunker::CsvChunker(std::string_view data, size_t begin, size_t target)
    : data_(data), pos_(begin), target_(std::max<size_t>(target, 1)) {}

bool CsvChunker::next(CsvChunk& out) {
  const char* d = data_.data();
  const size_t n = data_.size();
  if (pos_ >= n) return false;
  size_t end = n;
  if (n - pos_ > target_) {
    // Quote parity at the tentative end tells whether it lies inside a quoted field ("" is two
    // quotes and keeps the parity); the chunk then runs to the next line feed outside.
    size_t at = pos_ + target_;
    bool quoted = count_byte(d + pos_, d + at, '"') % 2 != 0;
    for (; at < n; ++at) {
      if (d[at] == '"') {
        quoted = !quoted;
      } else if (d[at] == '\n' && !quoted) {
        break;
      }
    }
    end = at < n ? at + 1 : n;
  }
  out = {pos_, end};
  pos_ = end;
  return true;
}

}  // namespace perfsage::collectors
