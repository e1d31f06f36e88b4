set(PERFSAGE_TEST_LIBS perfsage_analyzers)
perfsage_test(roofline_test unit/roofline_hw_test.cpp unit/roofline_model_test.cpp
              unit/roofline_gpu_parts_test.cpp)
set(PERFSAGE_TEST_LIBS perfsage_engine perfsage_analyzers)
perfsage_test(roofline_packs_test unit/roofline_packs_test.cpp)
