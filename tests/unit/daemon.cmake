# tests for the daemon (daemon/), its job queue (store/job_queue) and the HTML report
set(PERFSAGE_TEST_LIBS perfsage_store)
perfsage_test(job_queue_test unit/job_queue_test.cpp)
