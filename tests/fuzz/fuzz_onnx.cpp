// ONNX models: binary protobuf ModelProto (collectors/graph), strict and lenient.
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [choice, bytes] = perfsage::fuzz::split(data, size);
  auto mode = choice & 1 ? perfsage::collectors::Mode::lenient : perfsage::collectors::Mode::strict;
  perfsage::fuzz::ingest_as("model.onnx", bytes, mode);
  return 0;
}
