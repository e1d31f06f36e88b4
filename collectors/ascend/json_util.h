// Helpers shared by the Ascend JSON collectors (simdjson On Demand).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "collectors/common/collector.h"

namespace perfsage::collectors::ascend {

namespace od = simdjson::ondemand;

// A file read with simdjson padding, kept alive while documents point into it.
struct JsonInput {
  std::string text;
  simdjson::padded_string_view view() const {
    return simdjson::padded_string_view(text.data(), text.size(), text.capacity());
  }
  size_t offset_of(const char* p) const {
    return p >= text.data() && p <= text.data() + text.size() ? static_cast<size_t>(p - text.data())
                                                              : text.size();
  }
};
JsonInput load_json(const FileProbe& probe);

// "byte offset N: <simdjson message>", N from the document's current position when known.
// Only for a document that parser.iterate() set up: a failed iterate() leaves `doc` without a
// parser, and asking it for a position reads through a null pointer.
std::string json_error_where(const JsonInput& in, od::document& doc, simdjson::error_code e);

// Where a text that iterate() refused (simdjson's stage 1, which gives no position) is damaged:
// the first invalid UTF-8 byte, the opening quote of an unclosed string, else the end.
size_t stage1_error_offset(std::string_view text, simdjson::error_code e);

// parser.iterate(in) into `doc`; on failure, ctx.fail() naming the byte offset and `what`.
void iterate_or_fail(od::parser& parser, const JsonInput& in, od::document& doc,
                     CollectContext& ctx, std::string_view what);

// The text of `text` up to the last complete element of an array that ends before `damage`,
// followed by the brackets still open there, so that the result is a well-formed document
// holding every element completed before the damage. Only arrays at most `max_depth` deep
// (the outermost is depth 1) count; empty when no element ended before `damage`.
std::string close_before(std::string_view text, size_t damage, size_t max_depth);

// The text of a scalar: a string's content (raw, escapes untouched) or a number's digits.
// Returns empty for other kinds or on error.
std::string_view scalar_text(od::value v);
// The raw JSON of any value (object and array included), or empty on error.
std::string_view raw_value(od::value v);

std::optional<int64_t> int_of(std::string_view text);
std::optional<double> real_of(std::string_view text);

// First non-blank character of `head`.
char first_char(std::string_view head);

}  // namespace perfsage::collectors::ascend

namespace perfsage::collectors::ascend {
// The key of an object field as written (escapes untouched), without quotes.
std::string_view key_text(const od::raw_json_string& key);
// A raw JSON string token without its quotes; other tokens unchanged.
std::string_view unquote(std::string_view raw);
}  // namespace perfsage::collectors::ascend
