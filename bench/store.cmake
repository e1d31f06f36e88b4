# The store's insert ceiling next to RunWriter (see docs/performance.md, "The store's ceiling").
add_executable(store_ceiling_bench store_ceiling_bench.cpp)
target_link_libraries(store_ceiling_bench PRIVATE perfsage_store)
