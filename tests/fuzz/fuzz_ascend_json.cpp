// The Ascend JSON files (collectors/ascend): timeline (trace_view / msprof), info.json,
// communication.json, fusion_result.json; strict and lenient.
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* names[] = {"ASCEND_PROFILER_OUTPUT/trace_view.json",
                                "PROF_1/device_0/timeline/msprof_20240101000000.json",
                                "PROF_1/device_0/info.json.0",
                                "ASCEND_PROFILER_OUTPUT/communication.json", "fusion_result.json"};
  auto [choice, text] = perfsage::fuzz::split(data, size);
  auto mode = choice & 1 ? perfsage::collectors::Mode::lenient : perfsage::collectors::Mode::strict;
  perfsage::fuzz::ingest_as(names[(choice >> 1) % std::size(names)], text, mode);
  return 0;
}
