# Graph collectors: scale a real GE dump up (and build a large ONNX model), time the ingest.
add_executable(graph_bench graph_bench.cpp)
target_link_libraries(graph_bench PRIVATE perfsage_collectors)
target_compile_definitions(graph_bench PRIVATE
  PERFSAGE_SAMPLES_DIR="${PERFSAGE_SAMPLES_DIR}")
