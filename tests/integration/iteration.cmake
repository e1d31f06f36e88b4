set(PERFSAGE_TEST_LIBS perfsage_cli)
perfsage_test(iteration_samples_test integration/iteration_samples_test.cpp
  integration/one_base_test.cpp)
