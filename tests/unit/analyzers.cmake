set(PERFSAGE_TEST_LIBS perfsage_analyzers)
perfsage_test(analyzers_core_test unit/analyzers_core_test.cpp unit/analyzer_declarations_test.cpp
  unit/cpu_self_time_test.cpp)
