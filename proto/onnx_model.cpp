#include "proto/onnx_model.h"

#include <charconv>
#include <cstdint>
#include <unordered_set>

namespace perfsage::onnx_model {
namespace {
namespace ox = ::perfsage::onnx;

int64_t element_size(int32_t t) {
  using T = ox::TensorProto;
  switch (t) {
    case T::UINT8:
    case T::INT8:
    case T::BOOL:
      return 1;
    case T::UINT16:
    case T::INT16:
    case T::FLOAT16:
    case T::BFLOAT16:
      return 2;
    case T::FLOAT:
    case T::INT32:
    case T::UINT32:
      return 4;
    case T::INT64:
    case T::DOUBLE:
    case T::UINT64:
    case T::COMPLEX64:
      return 8;
    case T::COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

}  // namespace

int64_t tensor_bytes(const ox::TensorProto& t) {
  if (t.has_raw_data()) return static_cast<int64_t>(t.raw_data().size());
  if (t.data_location() == ox::TensorProto::EXTERNAL) {
    for (const auto& kv : t.external_data()) {
      int64_t len = 0;
      const auto& v = kv.value();
      if (kv.key() == "length" &&
          std::from_chars(v.data(), v.data() + v.size(), len).ec == std::errc()) {
        return len;
      }
    }
  }
  if (t.data_type() == ox::TensorProto::STRING) {
    int64_t sum = 0;
    for (const auto& s : t.string_data()) sum += static_cast<int64_t>(s.size());
    return sum;
  }
  int64_t n = 1;
  for (auto d : t.dims()) {
    if (d < 0 || (d > 0 && n > INT64_MAX / d)) return 0;
    n *= d;
  }
  int64_t es = element_size(t.data_type());
  return es > 0 && n <= INT64_MAX / es ? n * es : 0;
}

std::vector<std::string> node_names(const ox::GraphProto& g) {
  std::vector<std::string> names(g.node_size());
  std::unordered_set<std::string> used;
  for (const auto& n : g.node()) {
    if (!n.name().empty()) used.insert(n.name());
  }
  for (int i = 0; i < g.node_size(); ++i) {
    names[i] = g.node(i).name();
    if (names[i].empty()) {
      names[i] = g.node(i).op_type() + "_" + std::to_string(i);
      while (used.count(names[i])) names[i] += "_";
      used.insert(names[i]);
    }
  }
  return names;
}

}  // namespace perfsage::onnx_model
