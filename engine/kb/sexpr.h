// A small reader for CLIPS text written in packs (when, gain, evidence, ...): enough
// structure to check fact types, slots, called functions and variables before CLIPS sees
// it, and to refuse text that would escape its place in the generated defrule.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace perfsage::engine::sexpr {

struct Node {
  bool is_list = false;
  bool is_string = false;  // a "..." literal
  std::string atom;        // atom text (without quotes for strings)
  std::vector<Node> kids;
  int line = 1, column = 1;  // 1-based, within the text
};

struct SyntaxError : std::runtime_error {
  int line, column;
  SyntaxError(const std::string& what, int l, int c)
      : std::runtime_error(what), line(l), column(c) {}
};

constexpr size_t kMaxDepth = 200;

// Parses a sequence of forms; throws SyntaxError on unbalanced parentheses or strings, or
// nesting deeper than kMaxDepth.
std::vector<Node> parse(const std::string& text);

// The variable an atom names ("?x&:" -> "x", "$?rest" -> "rest", "?o:slot" -> "o"), or "".
std::string variable_of(const std::string& atom);

}  // namespace perfsage::engine::sexpr
