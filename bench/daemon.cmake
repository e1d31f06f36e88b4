# perfsaged: memory over many jobs, API latency under load (docs/performance.md, "perfsaged").
pkg_check_modules(BENCH_HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
foreach(bench daemon_memory_bench daemon_load_bench)
  add_executable(${bench} ${bench}.cpp)
  target_include_directories(${bench} PRIVATE ${CMAKE_SOURCE_DIR})
  target_compile_definitions(${bench} PRIVATE PERFSAGE_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
    PERFSAGE_BINARY_DIR="${CMAKE_BINARY_DIR}")
  target_link_libraries(${bench} PRIVATE PkgConfig::BENCH_HTTPLIB Threads::Threads)
  add_dependencies(${bench} perfsaged perfsage)
endforeach()
