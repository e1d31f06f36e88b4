# tests for app/'s read side (runs, jobs, history and its trend, queue view, the reuse rule,
# the one gain tolerance, finding changes of a run comparison, the charts' data)
set(PERFSAGE_TEST_LIBS perfsage_app)
perfsage_test(app_read_test unit/app_read_test.cpp unit/run_charts_test.cpp)
