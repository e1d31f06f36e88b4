#include "collectors/graph/ge_text_blocks.h"

namespace perfsage::collectors::graph {

std::vector<TextBlock> split_top_level(std::string_view text) {
  std::vector<TextBlock> out;
  int depth = 0, line = 0;
  size_t line_start = 0;
  bool in_block = false;
  TextBlock cur;
  auto close = [&](size_t end) {
    cur.end = end;
    out.push_back(cur);
    in_block = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      if (in_block && depth == 0) close(i + 1);
      ++line;
      line_start = i + 1;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') continue;
    if (!in_block) {
      if (c == '#') {  // a comment line between blocks
        while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
        continue;
      }
      cur = TextBlock{line_start, 0, line, true};
      in_block = true;
    }
    switch (c) {
      case '#':
        while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
        break;
      case '"':
      case '\'':
        // Strings cannot span lines in text format; an unterminated one ends at the newline.
        for (++i; i < text.size() && text[i] != c && text[i] != '\n'; ++i) {
          if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] != '\n') ++i;
        }
        if (i < text.size() && text[i] == '\n') --i;
        break;
      case '{':
      case '<':
        ++depth;
        break;
      case '}':
      case '>':
        if (depth > 0 && --depth == 0) {
          // The block ends with this line (anything after the brace belongs to it).
          size_t nl = text.find('\n', i);
          size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
          close(end);
          if (nl == std::string_view::npos) return out;
          i = nl;
          ++line;
          line_start = nl + 1;
        }
        break;
      default:
        break;
    }
  }
  if (in_block) {
    cur.closed = depth == 0;
    close(text.size());
  }
  return out;
}

}  // namespace perfsage::collectors::graph
