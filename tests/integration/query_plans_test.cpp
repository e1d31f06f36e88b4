// Every SQL statement that a real analysis runs (collectors' inserts, analyzers, fact queries,
// results) is traced and its plan checked: a join whose inner loop rescans a table is quadratic
// in the trace size (such joins turned a 100 MB trace into minutes of analysis). The plan of a
// statement depends on schema and query, not on data (the store keeps no statistics), so small
// samples exercise the same plans as big traces.
#include <sqlite3.h>

#include <cstdlib>
#include <set>
#include <sstream>

#include "app/analysis.h"
#include "app_knowledge.h"
#include "cli_support.h"
#include "query_plan_check.h"

using namespace perfsage;

namespace {

int trace_statement(unsigned, void* ctx, void* stmt, void*) {
  auto* seen = static_cast<std::set<std::string>*>(ctx);
  if (const char* sql = sqlite3_sql(static_cast<sqlite3_stmt*>(stmt))) seen->insert(sql);
  return 0;
}

}  // namespace

TEST_CASE("no statement of a real analysis joins by rescanning a table") {
  PERFSAGE_REQUIRE_SAMPLES();
  // The analyzers on the traced connection, one after another, not on readers of their own.
  ::setenv("PERFSAGE_ANALYZER_THREADS", "1", 1);
  test::TempDir dir;
  store::Database db((dir.path() / "store.db").string());
  std::set<std::string> statements;
  sqlite3_trace_v2(db.handle(), SQLITE_TRACE_STMT, trace_statement, &statements);
  auto knowledge = test::shipped_knowledge();
  for (const char* rel :
       {"kineto/hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
        "ascend/mstt/kernel_details_arith_util.csv", "ascend/mstt/trace_view.json",
        "ascend/mstt/cluster_step_trace_time.csv",
        "ascend/oam-tools/ge_proto_00000001_Build.txt"}) {
    app::AnalysisRequest req;
    req.inputs = {test::samples_dir() / rel};
    req.clock = [] { return std::string("now"); };
    auto outcome = app::analyze(db, req, *knowledge, {});
    INFO(rel << ": " << (outcome ? "" : outcome.error().message));
    REQUIRE(outcome);
  }
  sqlite3_trace_v2(db.handle(), 0, nullptr, nullptr);
  REQUIRE(statements.size() > 50);

  std::string problems;
  for (const auto& sql : statements) {
    if (sql.rfind("PRAGMA", 0) == 0 || sql.rfind("BEGIN", 0) == 0 || sql.rfind("COMMIT", 0) == 0 ||
        sql.rfind("SAVEPOINT", 0) == 0 || sql.rfind("RELEASE", 0) == 0 ||
        sql.rfind("ROLLBACK", 0) == 0 || sql.rfind("CREATE", 0) == 0 ||
        sql.find("EXPLAIN") != std::string::npos)
      continue;
    for (const auto& p : test::rescanning_joins(db, sql))
      problems += "\n  " + p + "\n    in: " + sql.substr(0, 300);
  }
  INFO("inner loops without a join key:" << problems);
  CHECK(problems.empty());
}
