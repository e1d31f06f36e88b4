#include "engine/kb/sexpr.h"

namespace perfsage::engine::sexpr {

std::vector<Node> parse(const std::string& text) {
  std::vector<Node> stack(1);  // stack[0] collects top-level forms
  stack[0].is_list = true;
  int line = 1, col = 1;
  size_t i = 0;
  auto advance = [&](char c) {
    ++i;
    if (c == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  };
  while (i < text.size()) {
    char c = text[i];
    if (c == ';') {
      while (i < text.size() && text[i] != '\n') advance(text[i]);
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      advance(c);
    } else if (c == '(') {
      // Checked before the tree exists: walking (and freeing) a deeper tree recurses per level,
      // and so does CLIPS's own parser.
      if (stack.size() > kMaxDepth)
        throw SyntaxError("expressions nest deeper than " + std::to_string(kMaxDepth) + " levels",
                          line, col);
      Node n;
      n.is_list = true;
      n.line = line;
      n.column = col;
      stack.push_back(std::move(n));
      advance(c);
    } else if (c == ')') {
      if (stack.size() == 1) throw SyntaxError("unbalanced ')'", line, col);
      Node done = std::move(stack.back());
      stack.pop_back();
      stack.back().kids.push_back(std::move(done));
      advance(c);
    } else if (c == '"') {
      Node n;
      n.is_string = true;
      n.line = line;
      n.column = col;
      advance(c);
      bool closed = false;
      while (i < text.size()) {
        char d = text[i];
        if (d == '\\' && i + 1 < text.size()) {
          advance(d);
          n.atom += text[i];
          advance(text[i]);
        } else if (d == '"') {
          advance(d);
          closed = true;
          break;
        } else {
          n.atom += d;
          advance(d);
        }
      }
      if (!closed) throw SyntaxError("unterminated string", n.line, n.column);
      stack.back().kids.push_back(std::move(n));
    } else {
      Node n;
      n.line = line;
      n.column = col;
      while (i < text.size()) {
        char d = text[i];
        if (d == ' ' || d == '\t' || d == '\n' || d == '\r' || d == '(' || d == ')' || d == '"' ||
            d == ';')
          break;
        n.atom += d;
        advance(d);
      }
      stack.back().kids.push_back(std::move(n));
    }
  }
  if (stack.size() != 1) {
    const Node& open = stack.back();
    throw SyntaxError("unbalanced '(': not closed", open.line, open.column);
  }
  return std::move(stack[0].kids);
}

std::string variable_of(const std::string& atom) {
  size_t start = 0;
  if (atom.rfind("$?", 0) == 0)
    start = 2;
  else if (atom.rfind("?", 0) == 0)
    start = 1;
  else
    return "";
  size_t end = atom.find_first_of("&|~:=", start);
  return atom.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace perfsage::engine::sexpr
