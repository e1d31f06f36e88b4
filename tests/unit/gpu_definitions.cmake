# perfsage's GPU time against HTA's definitions, recomputed from the trace files.
set(PERFSAGE_TEST_LIBS perfsage_collectors perfsage_analyzers perfsage_engine perfsage_cli)
perfsage_test(hta_definitions_test unit/hta_definitions_test.cpp)
# GPU advice with a firing and a silent case per guard, on traces made in the test.
perfsage_test(gpu_advice_test unit/gpu_advice_test.cpp)
