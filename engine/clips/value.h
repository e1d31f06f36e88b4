// A CLIPS value as C++ sees it: what facts are built from and read back as.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perfsage::engine::clips {

enum class ValueType { Integer, Float, Symbol, String, Multifield, Other };

struct Value {
  ValueType type = ValueType::Symbol;
  int64_t integer = 0;
  double real = 0;
  std::string text = "nil";  // symbol or string contents; a rendering for Other
  std::vector<Value> items;  // Multifield

  static Value of_int(int64_t v) { return {ValueType::Integer, v, static_cast<double>(v), {}, {}}; }
  static Value of_float(double v) { return {ValueType::Float, 0, v, {}, {}}; }
  static Value of_symbol(std::string s) { return {ValueType::Symbol, 0, 0, std::move(s), {}}; }
  static Value of_string(std::string s) { return {ValueType::String, 0, 0, std::move(s), {}}; }

  bool is_number() const { return type == ValueType::Integer || type == ValueType::Float; }
  double number() const { return type == ValueType::Integer ? static_cast<double>(integer) : real; }
};

}  // namespace perfsage::engine::clips
