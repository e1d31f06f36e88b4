// A tiny builder for the compact JSON text stored in graph columns (attrs, shapes, name lists).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "store/json_text.h"

namespace perfsage::collectors::graph {

// Appends members to a JSON object; values are given as ready JSON text or typed scalars.
class JsonObject {
 public:
  void raw(std::string_view key, std::string_view json) {
    text_ += text_.empty() ? '{' : ',';
    store::append_json_string(text_, key);
    text_ += ':';
    text_ += json;
  }
  void str(std::string_view key, std::string_view value) {
    std::string v;
    store::append_json_string(v, value);
    raw(key, v);
  }
  void num(std::string_view key, int64_t value) { raw(key, std::to_string(value)); }
  bool empty() const { return text_.empty(); }
  // The object text, "{}" when nothing was added.
  std::string finish() const { return text_.empty() ? "{}" : text_ + '}'; }

 private:
  std::string text_;
};

// Appends items to a JSON array.
class JsonArray {
 public:
  void raw(std::string_view json) {
    text_ += text_.empty() ? '[' : ',';
    text_ += json;
  }
  void str(std::string_view value) {
    text_ += text_.empty() ? '[' : ',';
    store::append_json_string(text_, value);
  }
  void num(int64_t value) { raw(std::to_string(value)); }
  size_t size_hint() const { return text_.size(); }
  std::string finish() const { return text_.empty() ? "[]" : text_ + ']'; }

 private:
  std::string text_;
};

// A float as JSON: finite values in shortest round-trip form, others as null.
std::string json_number(double value);

}  // namespace perfsage::collectors::graph
