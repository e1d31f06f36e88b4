// Lenient repair of one malformed event's JSON text: the defects real PyTorch traces carry
// (invalid UTF-8, unescaped quotes or raw control characters inside strings, bare words such as
// N/A or NaN where a value belongs).
#pragma once

#include <string>
#include <string_view>

namespace perfsage::collectors::kineto {

struct Repairs {
  bool utf8 = false;         // invalid UTF-8 bytes replaced by U+FFFD
  bool quotes = false;       // unescaped quotes inside strings escaped
  bool control = false;      // raw control characters inside strings escaped
  bool bare_values = false;  // bare words (N/A, NaN, Infinity, ...) replaced by null
  bool any() const { return utf8 || quotes || control || bare_values; }
};

// Writes a repaired copy of `in` to `out` and says what was changed.
Repairs repair_event_json(std::string_view in, std::string& out);

// True when `s` is valid UTF-8.
bool valid_utf8(std::string_view s);

}  // namespace perfsage::collectors::kineto
