// UTF-8 validation shared by the JSON collectors (simdjson rejects a document with one bad byte
// without saying where).
#pragma once

#include <cstddef>
#include <string_view>

namespace perfsage::collectors {

// Length of the valid UTF-8 sequence at s[i], or 0 when the bytes there are not one (overlong
// forms, surrogates and values beyond U+10FFFF included).
size_t utf8_len(std::string_view s, size_t i);

// Offset of the first byte that does not start a valid UTF-8 sequence, or s.size().
size_t first_invalid_utf8(std::string_view s);

}  // namespace perfsage::collectors
