# The HTML report and the daemon's pages in headless Chromium (ctest label `browser`: `ctest -L
# browser`); without chromium they are skipped, loudly, and fail under CI=true or
# PERFSAGE_REQUIRE_SHARED=1. Screenshots: build/test-artifacts/.
set(PERFSAGE_TEST_LIBS perfsage_daemon)
perfsage_test(report_browser_test integration/report_browser_test.cpp)
add_dependencies(report_browser_test perfsaged perfsage)
set_tests_properties(report_browser_test daemon_page_test PROPERTIES LABELS browser)
