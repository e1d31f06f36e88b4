// The op-table collector reads rows in chunks on several threads: whatever the number of
// parsers and wherever the chunks split, the store and the ingest report are those of one
// sequential reader, and strict mode names the first bad row of the file.
#include <catch2/catch.hpp>
#include <string>

#include "ascend_test_util.h"
#include "collectors/ascend/op_table.h"
#include "collectors/common/collector.h"

using namespace perfsage;
using collectors::Mode;
using collectors::ascend::OpTableCollector;
using collectors::ascend::OpTableOptions;
using test::TempDir;

namespace {

struct Result {
  std::string rows;  // every column of every row, in rowid order
  std::vector<std::string> report;
  int64_t records = 0, skipped = 0;
};

Result collect(const std::filesystem::path& path, Mode mode, OpTableOptions options) {
  store::Database db(":memory:");
  collectors::RunHints hints;
  store::RunWriter w(db, {"job", {path.string()}, "fp", "now"});
  collectors::CollectContext ctx(w, mode, path.string(), hints);
  OpTableCollector(options).collect(collectors::probe_file(path), ctx);
  w.commit();
  Result r;
  auto st = db.prepare("SELECT * FROM op_tasks ORDER BY rowid");
  while (st.step()) {
    for (int i = 0; i < st.column_count(); ++i)
      r.rows += (st.is_null(i) ? std::string("-") : st.text(i)) + "|";
    r.rows += "\n";
  }
  r.report = ctx.report_lines();
  r.records = ctx.records();
  r.skipped = ctx.skipped();
  return r;
}

// An op_summary-style table with quoted shapes (commas, doubled quotes, a line break inside
// quotes), N/A cells, and every 97th row broken in one of three ways.
std::string table(int rows) {
  std::string t =
      "Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us),Block Dim,"
      "Input Shapes,aic_mac_ratio,aiv_vec_ratio,extra_metric\n";
  for (int i = 0; i < rows; ++i) {
    std::string n = std::to_string(i);
    if (i % 97 == 50) {
      if (i % 3 == 0) {
        t += "Bad";
        t += n;
        t += ",T,AI_CORE,1,not-a-number,1,\"1\",0,0,0\n";
      } else if (i % 3 == 1) {
        t += "Short";
        t += n;
        t += ",T\n";
      } else {
        t += ",T,AI_CORE,1,1,1,\"1\",0,0,0\n";
      }
      continue;
    }
    t += "MatMul_";
    t += n;
    t += i % 2 ? ",MatMul,AI_CORE," : ",MatMul,AI_VECTOR_CORE,";
    t += std::to_string(1700000000000000 + i);
    t += '.';
    t += std::to_string(i % 10);
    t += ',';
    t += std::to_string(i % 50 + 1);
    t += ".25,";
    t += i % 5 ? std::to_string(i % 48) : std::string("N/A");
    t += ',';
    if (i % 7 == 0) {
      t += "\"4,16;\"\"x\"\"\n;8\"";
    } else if (i % 7 == 1) {
      t += "\"\"\"544404480\"\"\"";
    } else {
      t += '"';
      t += n;
      t += ",1\"";
    }
    t += i % 4 ? ",0.5" : ",N/A";
    t += ",0.25,";
    t += i % 3 ? "1e3\n" : "text\n";
  }
  return t;
}

}  // namespace

TEST_CASE("op tables read the same with one parser and with two parsers over small chunks") {
  TempDir dir;
  auto path = dir.write("op_summary_0_1.csv", table(3000));
  Result one = collect(path, Mode::lenient, {1, size_t{1} << 30});
  CHECK(one.records == 3000 - 31);
  CHECK(one.skipped == 31);
  for (size_t chunk : {200, 777, 4096}) {
    INFO("chunks of " << chunk << " bytes");
    Result two = collect(path, Mode::lenient, {2, chunk});
    CHECK(two.records == one.records);
    CHECK(two.skipped == one.skipped);
    CHECK(two.report == one.report);
    CHECK(two.rows == one.rows);
  }
  // What the rows hold (the comparison alone would pass if both readers lost the same row).
  CHECK(one.rows.find("|4,16;x\n;8|") != std::string::npos);  // quotes dropped from shapes
  CHECK(one.rows.find("|544404480|") != std::string::npos);
}

TEST_CASE("strict mode names the first bad row whichever parser met it") {
  TempDir dir;
  // A line break inside quotes before the bad row: the line number counts it.
  std::string t = table(400);
  auto path = dir.write("op_summary_0_1.csv", t);
  for (int parsers : {1, 2}) {
    INFO(parsers << " parser(s)");
    try {
      collect(path, Mode::strict, {parsers, 300});
      FAIL("a bad row was accepted in strict mode");
    } catch (const collectors::ParseError& e) {
      // Row 50 is the first broken one; rows 0, 7, ..., 49 hold a line break each (8 rows).
      CHECK_THAT(e.what(), Catch::Contains("line " + std::to_string(1 + 50 + 8 + 1)));
    }
  }
}

TEST_CASE("the real kernel_details sample reads the same in 4 KiB chunks on two parsers") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto path = test::ascend_sample("mstt/kernel_details_arith_util.csv");
  Result one = collect(path, Mode::strict, {1, size_t{1} << 30});
  Result two = collect(path, Mode::strict, {2, 4096});
  CHECK(one.records == 591);
  CHECK(two.records == 591);
  CHECK(two.rows == one.rows);
}
