# kill -9, concurrent ingests, write-protected stores and full disks, with the real binary
set(PERFSAGE_TEST_LIBS perfsage_cli perfsage_app)
perfsage_test(store_integrity_test integration/store_integrity_test.cpp)
add_dependencies(store_integrity_test perfsage)
