// Splits CSV text into chunks that start and end on record boundaries, so that several
// threads can each read one with its own CsvReader and get the records a single reader would.
#pragma once

#include <cstddef>
#include <string_view>

namespace perfsage::collectors {

struct CsvChunk {
  size_t begin = 0, end = 0;  // byte offsets into the text
};

// Hands out chunks of about `target` bytes covering [begin, text end), in order, each found
// when asked for (one pass over its bytes to count quotes), so that splitting overlaps with
// reading the chunks already handed out. `begin` must be the start of a record. A chunk ends
// after a line feed outside quoted fields, so a CR LF pair stays together; a lone carriage
// return (also a line end to CsvReader) stays inside its chunk, whose reader counts its lines.
// Not thread-safe: callers take chunks under their lock.
class CsvChunker {
 public:
  CsvChunker(std::string_view data, size_t begin, size_t target);
  // The next chunk; false when the text is exhausted.
  bool next(CsvChunk& out);

 private:
  std::string_view data_;
  size_t pos_, target_;
};

// Occurrences of `c` in [p, end).
size_t count_byte(const char* p, const char* end, char c);

}  // namespace perfsage::collectors
