#include "collectors/graph/json_builder.h"

#include <charconv>
#include <cmath>

namespace perfsage::collectors::graph {

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, res.ptr);
}

}  // namespace perfsage::collectors::graph
