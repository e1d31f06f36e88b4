// A byte scanner that finds the layout of a Chrome trace without building values: the
// top-level keys, and the event array split into runs of whole elements ("chunks") that
// simdjson then parses one at a time. It tolerates the defects of real traces (unescaped quotes
// inside strings, raw newlines in strings, a missing closing bracket) so one bad event cannot
// hide the rest of the file.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfsage::collectors::kineto {

inline constexpr size_t kNoPos = static_cast<size_t>(-1);

struct Span {
  size_t begin = 0, end = 0;  // byte offsets, end exclusive
  size_t size() const { return end - begin; }
};

struct TraceLayout {
  bool object_form = true;
  // Object form: every top-level key except traceEvents, with the byte span of its value.
  std::vector<std::pair<std::string, Span>> keys;
  bool has_events = false;
  // Consecutive runs of whole elements of the event array, each about `chunk_bytes` long.
  std::vector<Span> chunks;
  int64_t elements = 0;
  // An element cut off by the end of the file.
  std::optional<Span> truncated_tail;
  // False when the file ended before the document's closing bracket.
  bool closed = true;
  // The first structural problem outside the event array (offset, what was expected).
  std::optional<std::pair<size_t, std::string>> error;
};

// For a text still being written (a gzip file inflated on another thread): wait(n) blocks
// until the first n bytes are there and returns how many are (fewer only when the text ended
// early). Empty: the whole text is there.
using WaitForText = std::function<size_t(size_t)>;

// Scans a whole trace document. `on_chunk`, when set, is called with each chunk as soon as it is
// complete (from the scanning thread), so parsing can start before the scan ends. With `wait`,
// bytes are read only once wait() has reported them.
TraceLayout scan_trace(std::string_view text, size_t chunk_bytes,
                       const std::function<void(Span)>& on_chunk = {},
                       const WaitForText& wait = {});

// The top-level keys before the event array, without scanning the events (cheap).
std::vector<std::pair<std::string, Span>> scan_head_keys(std::string_view text,
                                                         const WaitForText& wait = {});

// A guess at top-level keys written after the event array: the last occurrence of each `names`
// key in the final `window` bytes, with its value's span. It can be fooled by an event string
// holding the same text, so callers verify it against scan_trace's exact keys.
std::vector<std::pair<std::string, Span>> guess_tail_keys(std::string_view text,
                                                          const std::vector<std::string>& names,
                                                          size_t window);

// Appends the spans of the elements in text[span.begin, span.end) (a run of array elements
// separated by commas, as in TraceLayout::chunks). `plain_windows` false: containers are walked
// byte by byte only, the reference that tests hold the 64-byte windows to.
void split_elements(std::string_view text, Span span, std::vector<Span>& out,
                    bool plain_windows = true);

// The end of the JSON value starting at `pos` (after its closing bracket or quote), or kNoPos
// when the text ends first.
size_t skip_value(std::string_view text, size_t pos);

}  // namespace perfsage::collectors::kineto
