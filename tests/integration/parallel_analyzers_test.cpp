// Analyzers that run concurrently, each on a reader connection of its own with its tables copied
// into the store afterwards (analyzers/core/analyze_run.cpp), leave the store and the report as
// one analyzer after another does: every table of the store, row by row in rowid order, and the
// whole report, compared on samples of each kind (GPU traces, Ascend runs, model graphs).
#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "app/analysis.h"
#include "app_knowledge.h"
#include "cli_support.h"

using namespace perfsage;

namespace {

// Every table but the event tables' virtual views, row by row in rowid order; without the
// packs' evaluation times and the store's creation time, which differ between any two stores.
std::string dump(store::Database& db) {
  std::string out;
  auto tables = db.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND "
      "name != 'schema_version' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name");
  while (tables.step()) {
    std::string table = tables.text(0);
    out += "== " + table + "\n";
    auto rows = db.prepare("SELECT * FROM \"" + table + "\" ORDER BY rowid");
    while (rows.step()) {
      for (int i = 0; i < rows.column_count(); ++i) {
        if (rows.column_name(i) == "elapsed_ms") continue;
        if (rows.is_null(i)) {
          out += "NULL";
        } else if (rows.column_type(i) == SQLITE_FLOAT) {
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.17g", rows.real(i));
          out += buf;
        } else {
          out += std::string(rows.blob_view(i));
        }
        out += '|';
      }
      out += '\n';
    }
  }
  return out;
}

// The first line where two dumps differ, with its table: the whole dumps are too long to read.
std::string first_difference(const std::string& a, const std::string& b) {
  size_t at = 0, table = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) {
    if (a[at] == '\n' && a.compare(at + 1, 3, "== ") == 0) table = at + 1;
    ++at;
  }
  if (at == a.size() && at == b.size()) return "";
  size_t line = a.rfind('\n', at == 0 ? 0 : at - 1);
  line = line == std::string::npos ? 0 : line + 1;
  auto text = [&](const std::string& s) { return s.substr(line, s.find('\n', line) - line); };
  return a.substr(table, a.find('\n', table) - table) + ":\n  " + text(a) + "\n  " + text(b);
}

struct Analysed {
  std::string store, report;
};

Analysed analyse(const char* threads, const std::filesystem::path& input,
                 const app::Knowledge& knowledge) {
  ::setenv("PERFSAGE_ANALYZER_THREADS", threads, 1);
  test::TempDir dir;
  store::Database db((dir.path() / "store.db").string());
  app::AnalysisRequest req;
  req.inputs = {input};
  req.clock = [] { return std::string("now"); };
  auto outcome = app::analyze(db, req, knowledge, {});
  ::unsetenv("PERFSAGE_ANALYZER_THREADS");
  INFO(input << ": " << (outcome ? "" : outcome.error().message));
  REQUIRE(outcome);
  return {dump(db), outcome->report.SerializeAsString()};
}

}  // namespace

TEST_CASE("analyzers run concurrently store and report what they store one after another") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto knowledge = test::shipped_knowledge();
  for (const auto& input :
       {test::samples_dir() / "kineto/hta__df_index_resolver_df_index_resolver.json.gz",
        test::samples_dir() /
            "kineto/hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
        test::samples_dir() / "kineto/hta__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
        test::samples_dir() / "ascend/mstt", test::samples_dir() / "ascend/oam-tools",
        test::source_dir() / "examples/resnet50_rank0_ascend_pt"}) {
    INFO(input);
    Analysed serial = analyse("1", input, *knowledge);
    Analysed concurrent = analyse("3", input, *knowledge);
    CHECK(serial.store.size() > 1000);
    CHECK(first_difference(serial.store, concurrent.store) == "");
    CHECK(concurrent.report == serial.report);
  }
}
