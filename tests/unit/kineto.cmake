# tests for collectors/kineto and analyzers/gpu
set(PERFSAGE_TEST_LIBS perfsage_collectors)
perfsage_test(kineto_test
  unit/kineto_samples_test.cpp
  unit/kineto_synthetic_test.cpp
  unit/kineto_malformed_test.cpp)
set(PERFSAGE_TEST_LIBS perfsage_collectors perfsage_analyzers_gpu)
perfsage_test(kineto_gpu_test unit/kineto_gpu_test.cpp)
