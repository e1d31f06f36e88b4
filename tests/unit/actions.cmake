# tests for actions/ (tuning actions: kinds, plan/apply/rollback, verification)
add_executable(onnx_rewrite_tool actions/onnx_rewrite_tool.cpp)
target_link_libraries(onnx_rewrite_tool PRIVATE perfsage_actions)
# Debian's python (the one python3-onnx/-torch install into); the script exits 77 (skip) when
# python3-onnx or python3-numpy is missing and skips the torchvision models without torch.
find_program(PERFSAGE_DEBIAN_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(PERFSAGE_DEBIAN_PYTHON)
  add_test(NAME onnx_rewrite_check
    COMMAND ${PERFSAGE_DEBIAN_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/actions/check_onnx_rewrite.py
      --tool $<TARGET_FILE:onnx_rewrite_tool>
      --fixtures ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/graph
      --cache ${CMAKE_CURRENT_BINARY_DIR}/onnx_rewrite_models)
  set_tests_properties(onnx_rewrite_check PROPERTIES SKIP_RETURN_CODE 77)
endif()
set(PERFSAGE_TEST_LIBS perfsage_actions perfsage_analyzers perfsage_collectors)
perfsage_test(actions_kinds_test unit/actions_kinds_test.cpp)
set(PERFSAGE_TEST_LIBS perfsage_store)
perfsage_test(actions_store_test unit/actions_store_test.cpp)
set(PERFSAGE_TEST_LIBS perfsage_actions)
perfsage_test(actions_onnx_test unit/actions_onnx_test.cpp)
set(PERFSAGE_TEST_LIBS perfsage_actions perfsage_engine)
perfsage_test(actions_registry_test unit/actions_registry_test.cpp)
set(PERFSAGE_TEST_LIBS perfsage_actions perfsage_analyzers perfsage_collectors)
perfsage_test(actions_lifecycle_test unit/actions_lifecycle_test.cpp)
set(PERFSAGE_TEST_LIBS perfsage_cli perfsage_app)
perfsage_test(actions_cli_test integration/actions_test.cpp)
set(PERFSAGE_TEST_LIBS perfsage_cli perfsage_app)
perfsage_test(compare_test integration/compare_test.cpp integration/compare_changes_test.cpp)
