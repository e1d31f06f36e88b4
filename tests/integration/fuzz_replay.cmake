# The fuzz targets (tests/fuzz) built with a plain main that replays their regression inputs:
# every build of the suite (release, ASan + UBSan) runs them, with or without clang.
function(perfsage_fuzz_replay name)
  add_executable(fuzz_${name}_replay ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_${name}.cpp
    ${CMAKE_SOURCE_DIR}/tests/fuzz/replay_main.cpp)
  target_include_directories(fuzz_${name}_replay PRIVATE ${CMAKE_SOURCE_DIR}
    ${CMAKE_SOURCE_DIR}/tests/fuzz)
  target_link_libraries(fuzz_${name}_replay PRIVATE ${ARGN})
  add_test(NAME fuzz_replay_${name}
    COMMAND sh ${CMAKE_SOURCE_DIR}/tests/fuzz/replay.sh $<TARGET_FILE:fuzz_${name}_replay>
      ${name} ${CMAKE_BINARY_DIR}/fuzz-replay/${name})
endfunction()

perfsage_fuzz_replay(csv_tables perfsage_collectors)
perfsage_fuzz_replay(kineto perfsage_collectors ZLIB::ZLIB)
perfsage_fuzz_replay(ascend_json perfsage_collectors)
perfsage_fuzz_replay(ge_text perfsage_collectors)
perfsage_fuzz_replay(onnx perfsage_collectors)
perfsage_fuzz_replay(pack_yaml perfsage_app)
perfsage_fuzz_replay(config_yaml perfsage_app perfsage_collectors)
