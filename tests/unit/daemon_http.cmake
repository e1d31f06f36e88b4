# the daemon's HTTP front on its own: request framing (daemon/request_head.h) and where its log
# may rotate
set(PERFSAGE_TEST_LIBS perfsage_daemon)
perfsage_test(daemon_http_test unit/daemon_http_test.cpp)
