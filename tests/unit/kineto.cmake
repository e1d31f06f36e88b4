# tests for collectors/kineto: use perfsage_test(NAME sources...) after setting PERFSAGE_TEST_LIBS
