// Splits CSV text into chunks that start and end on record boundaries, so that several
// threads can each read one with its own CsvReader and get the records a single reader would.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace perfsage::collectors {

struct CsvChunk {
  size_t begin = 0, end = 0;  // byte offsets into the text
  size_t first_line = 1;      // 1-based line on which the chunk starts
};

// Chunks of about `target` bytes covering [begin, data.size()); `begin` must be the start of a
// record, on line `first_line`. A chunk ends after a line feed outside quoted fields. Text with
// lone carriage returns as line ends (which CsvReader also accepts) is one chunk: their line
// count would not match the reader's.
std::vector<CsvChunk> split_csv_records(std::string_view data, size_t begin, size_t first_line,
                                        size_t target);

}  // namespace perfsage::collectors
