# tests for collectors/ascend and the CSV reader in collectors/common
set(PERFSAGE_TEST_LIBS perfsage_collectors)
perfsage_test(ascend_test
  unit/ascend_csv_test.cpp
  unit/ascend_op_table_test.cpp
  unit/ascend_op_table_parallel_test.cpp
  unit/ascend_timeline_test.cpp
  unit/ascend_misc_test.cpp
  unit/ascend_damaged_json_test.cpp)
