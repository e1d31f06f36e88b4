# Ascend op-table generator and ingest benchmark (see docs/performance.md, "Ascend op tables").
add_library(perfsage_ascend_scale STATIC ascend_scale.cpp)
target_link_libraries(perfsage_ascend_scale PUBLIC perfsage_collectors)
target_include_directories(perfsage_ascend_scale PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})

add_executable(ascend_gen_op_table ascend_gen_op_table.cpp)
target_link_libraries(ascend_gen_op_table PRIVATE perfsage_ascend_scale)

add_executable(ascend_op_table_bench ascend_op_table_bench.cpp)
target_link_libraries(ascend_op_table_bench PRIVATE perfsage_ascend_scale)
target_compile_definitions(ascend_op_table_bench PRIVATE PERFSAGE_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
