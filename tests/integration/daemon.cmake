# perfsaged end to end: real daemons on temporary folders and ephemeral loopback ports
set(PERFSAGE_TEST_LIBS perfsage_daemon)
perfsage_test(daemon_test integration/daemon_test.cpp)
add_dependencies(daemon_test perfsaged perfsage)
perfsage_test(daemon_page_test integration/daemon_page_test.cpp)
add_dependencies(daemon_page_test perfsaged perfsage)
perfsage_test(daemon_actions_test integration/daemon_actions_test.cpp)
add_dependencies(daemon_actions_test perfsaged perfsage)
# Shared mode: three daemons on one PostgreSQL queue (a real server, tests/pg_server.h).
perfsage_test(daemon_shared_test integration/daemon_shared_test.cpp)
add_dependencies(daemon_shared_test perfsaged perfsage)
