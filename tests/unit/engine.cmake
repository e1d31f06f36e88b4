# tests for engine/ and the built-in knowledge bases
set(PERFSAGE_TEST_LIBS perfsage_engine perfsage_analyzers)
perfsage_test(engine_test unit/engine_clips_test.cpp unit/engine_facts_test.cpp
  unit/engine_kb_test.cpp unit/engine_eval_test.cpp unit/engine_query_plans_test.cpp
  unit/engine_run_error_test.cpp unit/engine_pristine_test.cpp)
target_compile_definitions(engine_test PRIVATE PERFSAGE_KB_DIR="${PERFSAGE_KB_DIR}")
