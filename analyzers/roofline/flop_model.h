// FLOP and byte estimates of one operator execution from its type, shapes and data types,
// for traces without hardware counters (Kineto `Input Dims`, Ascend op tables without
// metrics). Counts only the compulsory traffic (each input read once, each output written
// once), so estimated intensity is an upper bound.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perfsage::analyzers::roofline {

using Shape = std::vector<int64_t>;

// "4096,12288;4608,12288" (Ascend) or [[4096,12288],[4608,12288],[]] (Kineto JSON).
// Non-tensor entries become empty shapes; malformed text gives an empty list.
std::vector<Shape> parse_shapes(const std::string& text);
// "FLOAT16;FLOAT16" or ["float","c10::Half","Scalar"].
std::vector<std::string> parse_dtypes(const std::string& text);

// Shapes as the model sees them: a FRACTAL_NZ tensor is stored as [..., N1, M1, M0, N0] and
// stands for [..., M1 x M0, N1 x N0] (padded to the 16 x 16 fractal the cube computes on).
// `formats` is the op table's ';'-separated format list; other formats are left as they are.
std::vector<Shape> logical_shapes(std::vector<Shape> shapes, const std::string& formats);

// Bytes per element of a dtype name (FLOAT16, float, c10::BFloat16, INT8, ...); 0 = unknown.
int dtype_bytes(const std::string& dtype);
// fp32 | fp16 | bf16 | int8 | fp64 | int | unknown
std::string precision_of(const std::string& dtype);

// Operator class used to pick the model and the roof: matmul, conv, attention, elementwise,
// norm, softmax, reduction, other.
std::string op_class(const std::string& type);

struct Estimate {
  double flops = 0, bytes = 0;
  bool ok = false;
  std::string why;  // reason when !ok
};

// One execution. `outputs` may be empty (Kineto); shapes of outputs are then inferred.
Estimate estimate(const std::string& type, const std::vector<Shape>& inputs,
                  const std::vector<std::string>& in_dtypes, const std::vector<Shape>& outputs,
                  const std::vector<std::string>& out_dtypes);

}  // namespace perfsage::analyzers::roofline
