set(PERFSAGE_TEST_LIBS perfsage_cli)
perfsage_test(cli_test integration/cli_test.cpp)
perfsage_test(samples_test integration/samples_test.cpp)
