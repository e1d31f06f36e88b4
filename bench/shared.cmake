# Shared mode (PostgreSQL): the queue's claims per second, the cost per job of the catalog
# (docs/performance.md, "Shared mode (PostgreSQL)"; docs/scale-out.md, "Cost model").
add_executable(shared_queue_bench shared_queue_bench.cpp)
target_include_directories(shared_queue_bench PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(shared_queue_bench PRIVATE perfsage_store_pg Threads::Threads)
add_executable(shared_job_bench shared_job_bench.cpp)
target_include_directories(shared_job_bench PRIVATE ${CMAKE_SOURCE_DIR})
target_compile_definitions(shared_job_bench PRIVATE PERFSAGE_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
target_link_libraries(shared_job_bench PRIVATE perfsage_app Threads::Threads)
# Whole perfsaged processes on one PostgreSQL against one in SQLite mode.
if(NOT TARGET PkgConfig::BENCH_HTTPLIB)
  pkg_check_modules(BENCH_HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
endif()
add_executable(shared_daemons_bench shared_daemons_bench.cpp)
target_include_directories(shared_daemons_bench PRIVATE ${CMAKE_SOURCE_DIR})
target_compile_definitions(shared_daemons_bench PRIVATE PERFSAGE_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
  PERFSAGE_BINARY_DIR="${CMAKE_BINARY_DIR}")
target_link_libraries(shared_daemons_bench PRIVATE perfsage_store_pg PkgConfig::BENCH_HTTPLIB
  Threads::Threads)
add_dependencies(shared_daemons_bench perfsaged)
# A cluster run fanned out by rank over 1-3 perfsaged against one analysing it alone.
add_executable(shared_cluster_bench shared_cluster_bench.cpp)
target_include_directories(shared_cluster_bench PRIVATE ${CMAKE_SOURCE_DIR})
target_compile_definitions(shared_cluster_bench PRIVATE PERFSAGE_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
  PERFSAGE_BINARY_DIR="${CMAKE_BINARY_DIR}" PERFSAGE_SAMPLES_DIR="${PERFSAGE_SAMPLES_DIR}")
target_link_libraries(shared_cluster_bench PRIVATE perfsage_store_pg PkgConfig::BENCH_HTTPLIB
  Threads::Threads)
add_dependencies(shared_cluster_bench perfsaged)
