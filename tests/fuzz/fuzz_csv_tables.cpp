// CSV op tables and the other Ascend CSV files (collectors/ascend), strict and lenient.
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* names[] = {"ASCEND_PROFILER_OUTPUT/kernel_details.csv",
                                "PROF_1/device_0/summary/op_summary_0_1.csv",
                                "ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
                                "cluster_analysis_output/cluster_step_trace_time.csv",
                                "PROF_1/device_0/summary/op_statistic_0_1.csv",
                                "PROF_1/device_0/summary/step_trace_0_1.csv"};
  auto [choice, text] = perfsage::fuzz::split(data, size);
  auto mode = choice & 1 ? perfsage::collectors::Mode::lenient : perfsage::collectors::Mode::strict;
  perfsage::fuzz::ingest_as(names[(choice >> 1) % std::size(names)], text, mode);
  return 0;
}
