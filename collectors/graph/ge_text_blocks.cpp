#include "collectors/graph/ge_text_blocks.h"

namespace perfsage::collectors::graph {
namespace {
enum class Lex { blank, newline, comment, open, close, other };

// Classifies text[i]; at a # comment or a quoted string, moves i to its last character (a string
// cut by a newline ends before it: strings cannot span lines in text format).
Lex lex(std::string_view text, size_t& i) {
  char c = text[i];
  switch (c) {
    case '\n':
      return Lex::newline;
    case ' ':
    case '\t':
    case '\r':
      return Lex::blank;
    case '#':
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      return Lex::comment;
    case '"':
    case '\'':
      for (++i; i < text.size() && text[i] != c && text[i] != '\n'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] != '\n') ++i;
      }
      if (i < text.size() && text[i] == '\n') --i;
      return Lex::other;
    case '{':
    case '<':
      return Lex::open;
    case '}':
    case '>':
      return Lex::close;
    default:
      return Lex::other;
  }
}
}  // namespace

std::optional<TextPosition> first_block_deeper_than(std::string_view text, int limit) {
  int depth = 0, line = 0;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    Lex kind = lex(text, i);
    if (kind == Lex::newline) {
      ++line;
      line_start = i + 1;
    } else if (kind == Lex::open && ++depth > limit) {
      return TextPosition{line, static_cast<int>(i - line_start)};
    } else if (kind == Lex::close && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

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
    Lex kind = lex(text, i);
    if (kind == Lex::newline) {
      if (in_block && depth == 0) close(i + 1);
      ++line;
      line_start = i + 1;
      continue;
    }
    if (kind == Lex::blank) continue;
    if (!in_block) {
      if (kind == Lex::comment) continue;  // a comment line between blocks
      cur = TextBlock{line_start, 0, line, true};
      in_block = true;
    }
    if (kind == Lex::open) {
      ++depth;
    } else if (kind == Lex::close && depth > 0 && --depth == 0) {
      // The block ends with this line (anything after the brace belongs to it).
      size_t nl = text.find('\n', i);
      size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
      close(end);
      if (nl == std::string_view::npos) return out;
      i = nl;
      ++line;
      line_start = nl + 1;
    }
  }
  if (in_block) {
    cur.closed = depth == 0;
    close(text.size());
  }
  return out;
}

}  // namespace perfsage::collectors::graph
