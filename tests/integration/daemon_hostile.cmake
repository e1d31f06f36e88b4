# perfsaged against hostile clients and paths: slow and oversized requests, a port file that is
# a FIFO; real daemons on loopback, every wait bounded
set(PERFSAGE_TEST_LIBS perfsage_daemon)
perfsage_test(daemon_hostile_test integration/daemon_hostile_test.cpp)
add_dependencies(daemon_hostile_test perfsaged)
