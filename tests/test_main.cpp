// The test programs' main: Catch2's session, and an honest exit status for cases that could not
// run. A case that needs ../shared/samples and does not find them calls skip_case(); the
// program then exits with kSkipReturnCode (ctest's SKIP_RETURN_CODE: the test is reported as
// skipped, never as passed) unless a case failed. Where the samples must exist (CI, or
// PERFSAGE_REQUIRE_SHARED=1), a missing sample fails the case instead.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <csignal>
#include <cstdio>

#include "test_support.h"

int main(int argc, char* argv[]) {
  // A server that closes a connection the test still writes to (a daemon refusing a request
  // early) is a failed send to check, not a silent death that leaves the test's daemons behind.
  std::signal(SIGPIPE, SIG_IGN);
  int failed = Catch::Session().run(argc, argv);
  if (failed != 0) return failed;
  int skipped = perfsage::test::skipped_cases();
  if (skipped > 0) {
    std::fprintf(stderr, "%d test case(s) skipped: they could not run here (see the warnings)\n",
                 skipped);
    return perfsage::test::kSkipReturnCode;
  }
  return 0;
}
