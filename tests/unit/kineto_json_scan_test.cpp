// The Kineto layout scanner splits the event array into whole elements. It walks plain JSON
// 64 bytes at a time and falls back to a byte-wise walk with lenient string rules; these tests
// put every construct that forces the fallback (escapes, unescaped quotes, raw newlines in
// strings, a space after a closing quote) at every offset of a 64-byte window, and check the
// element boundaries against the ones the text was built from.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "collectors/kineto/json_scan.h"

using perfsage::collectors::kineto::scan_trace;
using perfsage::collectors::kineto::Span;
using perfsage::collectors::kineto::split_elements;

namespace {

struct Built {
  std::string text;
  std::vector<Span> elements;
};

// An array of `elements`, each preceded by ",\n  " like Kineto writes them.
Built build_array(const std::vector<std::string>& elements) {
  Built b;
  b.text.push_back('[');
  for (size_t i = 0; i < elements.size(); ++i) {
    b.text += i ? ",\n  " : "\n  ";
    b.elements.push_back({b.text.size(), b.text.size() + elements[i].size()});
    b.text += elements[i];
  }
  b.text += "\n]";
  return b;
}

std::vector<Span> split(const Built& b) {
  std::vector<Span> out;
  split_elements(b.text, Span{1, b.text.size()}, out);
  return out;
}

void check_boundaries(const Built& b, const std::string& what) {
  auto got = split(b);
  INFO(what);
  REQUIRE(got.size() == b.elements.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": " << b.text.substr(b.elements[i].begin, b.elements[i].size()));
    CHECK(got[i].begin == b.elements[i].begin);
    CHECK(got[i].end == b.elements[i].end);
  }
}

// An event whose "pad" string moves `tail` to every offset of a 64-byte window, followed by a
// plain event that must still start where it was written.
Built padded(size_t pad, const std::string& tail) {
  std::string e = R"({"ph": "X", "pad": ")" + std::string(pad, 'p') + "\", " + tail + "}";
  std::string plain =
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2,)"
      R"( "args": {"grid": [1, 2, 3], "block": [4, 5, 6], "stream": 7}})";
  return build_array({plain, e, plain, e, plain});
}

}  // namespace

TEST_CASE("plain events are split at their boundaries, whatever their length") {
  std::vector<std::string> events;
  for (size_t len = 0; len < 200; ++len)
    events.push_back(R"({"name": ")" + std::string(len, 'n') +
                     R"(", "args": {"Input Dims": [[1, 2], []], "x": {"y": [{}]}}})");
  check_boundaries(build_array(events), "plain");
}

TEST_CASE("brackets, commas and colons inside strings do not end an element") {
  for (size_t pad = 0; pad < 80; ++pad) {
    check_boundaries(padded(pad, R"("name": "}]},{[:,", "args": {"s": "]}"}, "t": "{")"),
                     "brackets in strings, pad " + std::to_string(pad));
  }
}

TEST_CASE("escapes are honoured at every offset") {
  const std::vector<std::string> tails = {
      R"("name": "a \"quoted}\" name")",  // escaped quotes with a bracket between
      R"("name": "ends in a backslash \\")",
      R"("name": "\\\\\"}")",  // an escaped backslash, then an escaped quote
      R"("path": "C:\\dir\\file.py", "n": 1)",
      R"("u": "\u00e9\n\t")",
  };
  for (const auto& tail : tails)
    for (size_t pad = 0; pad < 80; ++pad)
      check_boundaries(padded(pad, tail), tail + ", pad " + std::to_string(pad));
}

TEST_CASE("lenient string rules hold at every offset") {
  // An unescaped quote inside a string (some PyTorch versions write them), a raw newline inside
  // a string, and whitespace between a closing quote and its separator.
  const std::vector<std::string> tails = {
      R"("name": "say "hi" now", "n": 1)",
      R"("name": "say "x}" now", "n": 1)",  // a bracket between two unescaped quotes
      "\"name\": \"broken\nline\", \"n\": 1", R"("name" : "spaced" , "args" : {"k" : "v" })",
      "\"name\":\t\"tab\"\t,\"n\":1",
  };
  for (const auto& tail : tails)
    for (size_t pad = 0; pad < 80; ++pad)
      check_boundaries(padded(pad, tail), tail + ", pad " + std::to_string(pad));
}

TEST_CASE("an element cut off by the end of the text is reported as the tail") {
  Built b = build_array({R"({"a": "x", "b": [1, 2, 3], "c": "a long string to cross a block"})",
                         R"({"a": "x", "b": [1, 2, 3], "c": "a long string to cross a block"})"});
  std::string text = b.text.substr(0, b.elements[1].begin + 50);  // inside the second string
  auto layout = scan_trace(text, 1 << 20);
  CHECK(layout.elements == 1);
  REQUIRE(layout.truncated_tail);
  CHECK(layout.truncated_tail->begin == b.elements[1].begin);
  CHECK_FALSE(layout.closed);
}

TEST_CASE("the event array is found in the object form and split into chunks of whole events") {
  std::vector<std::string> events;
  for (int i = 0; i < 500; ++i)
    events.push_back(R"({"ph": "X", "name": "op)" + std::to_string(i) + R"(", "ts": )" +
                     std::to_string(i) + "}");
  Built arr = build_array(events);
  std::string text =
      R"({"schemaVersion": 1, "traceEvents": )" + arr.text + R"(, "baseTimeNanoseconds": 5})";
  const size_t shift = text.find('[');
  auto layout = scan_trace(text, 1024);
  CHECK(layout.elements == 500);
  REQUIRE(layout.chunks.size() > 5);
  CHECK(layout.chunks.front().begin == arr.elements.front().begin + shift);
  CHECK(layout.chunks.back().end == arr.elements.back().end + shift);
  for (size_t i = 1; i < layout.chunks.size(); ++i) {
    std::vector<Span> parts;
    split_elements(text, layout.chunks[i], parts);
    CHECK(text[parts.front().begin] == '{');
    CHECK(text[parts.back().end - 1] == '}');
  }
  REQUIRE(layout.keys.size() == 2);
  CHECK(layout.keys[1].first == "baseTimeNanoseconds");
}

TEST_CASE("the 64-byte walk agrees with the byte-wise walk on random damaged traces") {
  // Events built from fragments that include every byte the walks treat specially, often
  // misplaced: the two must find the same elements whatever the damage.
  const std::vector<std::string> fragments = {R"("name": "aten::mm")",
                                              R"("args": {"a": [1, 2, {"b": "c"}]})",
                                              R"("s": "x\"y")",
                                              R"("p": "C:\\dir")",
                                              R"("q": "say "hi" now")",
                                              "\"nl\": \"a\nb\"",
                                              R"("k" : "v" )",
                                              R"("br": "}]{[")",
                                              R"("u": "\u00e9")",
                                              "\"",
                                              "\\",
                                              "}",
                                              "{",
                                              "[",
                                              "]",
                                              ",",
                                              ":",
                                              "\n",
                                              " ",
                                              R"("long": ")" + std::string(70, 'x') + "\"",
                                              R"("t": "a"}"b")",
                                              R"("d": ""]"")",
                                              R"("e": "q"x]" z")",
                                              R"("f": "a""}")",
                                              R"("h": "a\"}")"};
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&](size_t n) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<size_t>(state % n);
  };
  for (int round = 0; round < 3000; ++round) {
    std::string text = "[";
    const size_t events = 1 + next(12);
    for (size_t e = 0; e < events; ++e) {
      text += e ? ",\n  {" : "\n  {";
      const size_t parts = next(8);
      for (size_t k = 0; k < parts; ++k) {
        if (k) text += ", ";
        // Mostly well-formed fields, sometimes a stray special byte.
        text += fragments[next(3) == 0 ? next(fragments.size()) : next(10)];
      }
      text += "}";
    }
    text += "\n]";
    std::vector<Span> fast, reference;
    split_elements(text, Span{1, text.size()}, fast, true);
    split_elements(text, Span{1, text.size()}, reference, false);
    INFO("round " << round << ": " << text);
    REQUIRE(fast.size() == reference.size());
    for (size_t i = 0; i < fast.size(); ++i) {
      CHECK(fast[i].begin == reference[i].begin);
      CHECK(fast[i].end == reference[i].end);
    }
  }
}
