# tests for collectors/graph and analyzers/graph
set(PERFSAGE_TEST_LIBS perfsage_collectors)
perfsage_test(graph_collectors_test unit/graph_ge_dump_test.cpp unit/graph_onnx_test.cpp
  unit/graph_bad_input_test.cpp)
set(PERFSAGE_TEST_LIBS perfsage_analyzers perfsage_collectors)
perfsage_test(graph_match_test unit/graph_match_test.cpp)
