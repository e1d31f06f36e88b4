// A fast RFC 4180 CSV reader over an in-memory buffer.
//
// One pass, fields as string_views into the buffer (or into a per-record scratch buffer when a
// quoted field contains doubled quotes), no allocation per row once the buffers have grown.
// Handles a UTF-8 BOM, CRLF and CR line ends, quoted fields with embedded separators and
// newlines, and trims spaces and tabs around every value (inside quotes too: some torch_npu
// versions write `"<digits>.<digits>\t"`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/common/block_mask.h"

namespace perfsage::collectors {

class CsvReader {
 public:
  // `data` must outlive the reader and every field view it hands out. A chunk of a larger text
  // (csv_chunks.h) is read with `chunk`: no byte-order mark is looked for at its start.
  enum class Start { file, chunk };
  explicit CsvReader(std::string_view data, char separator = ',', Start start = Start::file);

  // Reads the next non-blank record. Returns false at the end of the input. Field views stay
  // valid until the next call.
  bool next();

  const std::vector<std::string_view>& fields() const { return fields_; }
  size_t size() const { return fields_.size(); }
  std::string_view operator[](size_t i) const { return fields_[i]; }
  // 1-based line on which the current record starts.
  size_t line() const { return line_; }
  // Byte offset of the current record in the input.
  size_t offset() const { return record_offset_; }
  // Non-empty when the current record is malformed (an unterminated quoted field); the record
  // then holds what could be read up to the end of the input.
  const std::string& error() const { return error_; }
  // Bytes consumed so far, and the line the next record starts on.
  size_t position() const { return pos_; }
  size_t next_line() const { return next_line_; }

 private:
  struct Span {
    size_t begin, len;
    bool scratch;
  };
  void read_record();
  uint64_t classify(size_t block) const;
  // The first separator, quote, \n or \r at or after `pos`, or the end of the data.
  size_t next_special(size_t pos);
  // The end of an unquoted field starting at `pos`: the next separator, \n or \r.
  size_t field_end(size_t pos);

  std::string_view data_;
  char sep_;
  // Positions of the separator, quotes, \n and \r, classified 64 bytes at a time (SSE2 on
  // x86-64) so that fields are crossed a bit mask at a time instead of byte by byte.
  BlockMask mask_;
  size_t pos_ = 0;
  size_t next_line_ = 1;
  size_t line_ = 0;
  size_t record_offset_ = 0;
  std::vector<Span> spans_;
  std::vector<std::string_view> fields_;
  std::string scratch_;
  std::string error_;
};

// Maps header names onto column indices; lookups ignore case and surrounding whitespace.
class CsvHeader {
 public:
  CsvHeader() = default;
  explicit CsvHeader(const std::vector<std::string_view>& fields);
  std::optional<size_t> find(std::string_view name) const;
  // The first of several spellings that is present.
  std::optional<size_t> find_any(std::initializer_list<std::string_view> names) const;
  const std::vector<std::string>& names() const { return names_; }
  size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;  // as written (trimmed)
  std::vector<std::string> lower_;  // lower-cased, for lookup
};

std::string to_lower_ascii(std::string_view s);
std::string_view trim_blanks(std::string_view s);

}  // namespace perfsage::collectors
