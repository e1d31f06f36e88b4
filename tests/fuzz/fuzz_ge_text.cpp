// GE graph dumps: protobuf text of ge.proto.ModelDef (collectors/graph), strict and lenient.
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [choice, text] = perfsage::fuzz::split(data, size);
  auto mode = choice & 1 ? perfsage::collectors::Mode::lenient : perfsage::collectors::Mode::strict;
  perfsage::fuzz::ingest_as("ge_proto_00000001_Build.txt", text, mode);
  return 0;
}
