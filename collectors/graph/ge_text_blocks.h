// Splits protobuf text into its top-level fields, so a damaged dump can be read block by block.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace perfsage::collectors::graph {

struct TextBlock {
  size_t begin = 0, end = 0;  // byte range; begins at the start of a line
  int line = 0;               // 0-based line of `begin`
  bool closed = true;         // false when the text ended inside the block (truncated)
};

// Top-level fields of a text-format message: `graph { ... }` and `attr { ... }` blocks and
// `name: "..."` scalars. Braces inside quoted strings and # comments are ignored. A scalar
// field ends at the end of its line; a block ends where its braces balance.
std::vector<TextBlock> split_top_level(std::string_view text);

// Where `text` opens its first block nested deeper than `limit` (0-based line and column of the
// brace), lexed as split_top_level does; nullopt when no block is. protobuf's text parser
// recurses once per level and skips unknown fields without a limit, so deep nesting must be
// refused before the text reaches it.
struct TextPosition {
  int line = 0, column = 0;
};
std::optional<TextPosition> first_block_deeper_than(std::string_view text, int limit);

}  // namespace perfsage::collectors::graph
