# tests for collectors/ascend: use perfsage_test(NAME sources...) after setting PERFSAGE_TEST_LIBS
