# tests for store/: run status, unique fingerprints, run locks, full disks (tests/full_disk_vfs.h)
set(PERFSAGE_TEST_LIBS perfsage_store)
perfsage_test(store_hardening_test unit/store_hardening_test.cpp)
