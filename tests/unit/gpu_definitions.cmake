# perfsage's GPU time against HTA's definitions, recomputed from the trace files.
set(PERFSAGE_TEST_LIBS perfsage_collectors perfsage_analyzers perfsage_engine perfsage_cli)
perfsage_test(hta_definitions_test unit/hta_definitions_test.cpp)
