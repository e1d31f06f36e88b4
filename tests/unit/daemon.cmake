# tests for the daemon (daemon/), its job queue (store/job_queue) and the HTML report
set(PERFSAGE_TEST_LIBS perfsage_store perfsage_store_pg)
perfsage_test(job_queue_test unit/job_queue_test.cpp)
set(PERFSAGE_TEST_LIBS perfsage_daemon)
perfsage_test(daemon_unit_test unit/daemon_config_test.cpp unit/daemon_watch_test.cpp
  unit/daemon_metrics_test.cpp)
# One job identity for the CLI, the watcher and submit (app/job_identity.h).
perfsage_test(job_identity_test unit/job_identity_test.cpp)
