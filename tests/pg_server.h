// A real PostgreSQL server for the shared mode's tests (pg_cluster.h: initdb in a temporary
// folder, pg_ctl on a Unix socket, as `postgres` when the tests run as root). Where it is missing,
// the cases that need it skip, loudly, and fail where the shared mode must be tested (CI or
// PERFSAGE_REQUIRE_SHARED=1).
#pragma once

#include "pg_cluster.h"
#include "test_support.h"

// Skips (or, where required, fails) the current case when no PostgreSQL server can run here.
#define PERFSAGE_REQUIRE_POSTGRES(server)                                                      \
  std::string pg_why_;                                                                         \
  perfsage::test::PgServer* server = perfsage::test::PgServer::shared(&pg_why_);               \
  do {                                                                                         \
    if (!server) {                                                                             \
      if (perfsage::test::samples_required()) FAIL("no PostgreSQL for the test: " << pg_why_); \
      WARN("skipped: no PostgreSQL here: " << pg_why_);                                        \
      perfsage::test::note_skipped();                                                          \
      return;                                                                                  \
    }                                                                                          \
  } while (0)
