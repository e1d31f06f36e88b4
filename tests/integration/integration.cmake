set(PERFSAGE_TEST_LIBS perfsage_cli perfsage_app)
perfsage_test(cli_test integration/cli_test.cpp)
perfsage_test(samples_test integration/samples_test.cpp)
perfsage_test(query_plans_test integration/query_plans_test.cpp)
