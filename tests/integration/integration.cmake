set(PERFSAGE_TEST_LIBS perfsage_cli perfsage_app)
perfsage_test(cli_test integration/cli_test.cpp)
perfsage_test(knowledge_in_flight_test integration/knowledge_in_flight_test.cpp)
perfsage_test(samples_test integration/samples_test.cpp)
perfsage_test(query_plans_test integration/query_plans_test.cpp)
perfsage_test(parallel_analyzers_test integration/parallel_analyzers_test.cpp)
perfsage_test(hostile_packs_test integration/hostile_packs_test.cpp)
perfsage_test(kb_authoring_test integration/kb_authoring_test.cpp)
add_test(NAME install_check COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR}
  -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DWORK=${CMAKE_BINARY_DIR}/install_check
  -P ${CMAKE_CURRENT_SOURCE_DIR}/install/install_check.cmake)
