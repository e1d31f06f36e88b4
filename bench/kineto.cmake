# Kineto ingest benchmark; inputs come from kineto_gen.py (scales the real AlexNet trace up).
add_executable(kineto_bench kineto_bench.cpp)
target_link_libraries(kineto_bench PRIVATE perfsage_collectors spdlog::spdlog)
