// Splits protobuf text into its top-level fields, so a damaged dump can be read block by block.
#pragma once

#include <cstddef>
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

}  // namespace perfsage::collectors::graph
