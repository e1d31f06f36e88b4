# tests for collectors/kineto and analyzers/gpu
set(PERFSAGE_TEST_LIBS perfsage_collectors)
perfsage_test(kineto_test
  unit/kineto_samples_test.cpp
  unit/kineto_synthetic_test.cpp
  unit/kineto_malformed_test.cpp
  unit/kineto_json_scan_test.cpp)
# The samples test reads the collector's debug log: the same (compiled) spdlog as the library.
target_link_libraries(kineto_test PRIVATE spdlog::spdlog)
set(PERFSAGE_TEST_LIBS perfsage_collectors perfsage_analyzers_gpu)
perfsage_test(kineto_gpu_test unit/kineto_gpu_test.cpp unit/gpu_device_spans_test.cpp)
