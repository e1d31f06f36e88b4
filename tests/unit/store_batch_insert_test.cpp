// BatchInsert: rows in the order bound, one by one and then through full batch statements and
// a partly filled last one, with every value type, and the same inserter used again after
// finish().
#include <string>
#include <vector>

#include "store/batch_insert.h"
#include "store/database.h"
#include "test_support.h"

using namespace perfsage::store;

namespace {

// Every row of t as "run|n|x|s" lines in rowid order ("-" for NULL).
std::string rows_of(Database& db) {
  auto st = db.prepare(
      "SELECT run, coalesce(n, '-'), coalesce(x, '-'), coalesce(s, '-'), typeof(n), typeof(x) "
      "FROM t ORDER BY rowid");
  std::string out;
  while (st.step())
    out += st.text(0) + "|" + st.text(1) + "|" + st.text(2) + "|" + st.text(3) + "|" + st.text(4) +
           "|" + st.text(5) + "\n";
  return out;
}

void insert_rows(BatchInsert& insert, int from, int to, std::string& expected) {
  for (int i = from; i < to; ++i) {
    insert.bind(int64_t{7});
    if (i % 5 == 0) {
      insert.bind_null();
      expected += "7|-|";
    } else {
      insert.bind(int64_t{i});
      expected += "7|";
      expected += std::to_string(i);
      expected += "|";
    }
    insert.bind(i + 0.5);
    std::string text = "row ";
    text += std::to_string(i);
    insert.bind_text(text);
    insert.end_row();
    expected += std::to_string(i) + ".5|row " + std::to_string(i) + "|" +
                (i % 5 == 0 ? "null" : "integer") + "|real\n";
  }
}

}  // namespace

TEST_CASE("BatchInsert inserts every row in order, full statements and a partial last one") {
  const int one_by_one = BatchInsert::kOneByOne;
  for (int rows : {0, 1, 3, one_by_one - 1, one_by_one, one_by_one + 1, one_by_one + 249,
                   one_by_one + 250, 1000, 1001}) {
    INFO(rows << " rows");
    Database db(":memory:");
    db.exec("CREATE TABLE t(run INTEGER NOT NULL, n INTEGER, x REAL, s TEXT)");
    db.exec("CREATE INDEX t_run ON t(run)");
    BatchInsert insert(db, "t", {"run", "n", "x", "s"});
    REQUIRE(insert.rows_per_statement() == 249);
    std::string expected;
    insert_rows(insert, 0, rows, expected);
    CHECK(insert.batching() == (rows >= one_by_one));
    insert.finish();
    CHECK(rows_of(db) == expected);
    // Used again after finish(): the rows of the first partial statement are not repeated.
    insert_rows(insert, rows, rows + 3, expected);
    insert.finish();
    insert.finish();  // nothing pending: inserts nothing
    CHECK(rows_of(db) == expected);
  }
}

TEST_CASE("BatchInsert keeps a statement's parameters within SQLite's old limit of 999") {
  Database db(":memory:");
  std::vector<std::string> columns;
  std::string ddl = "CREATE TABLE w(";
  for (int i = 0; i < 40; ++i) {
    columns.push_back("c");
    columns.back() += std::to_string(i);
    if (i > 0) ddl += ", ";
    ddl += columns.back();
    ddl += " INTEGER";
  }
  db.exec(ddl + ")");
  BatchInsert insert(db, "w", columns);
  CHECK(insert.rows_per_statement() * 40 <= 999);
  for (int r = 0; r < BatchInsert::kOneByOne + 30; ++r) {
    for (int c = 0; c < 40; ++c) insert.bind(int64_t{r * 100 + c});
    insert.end_row();
  }
  insert.finish();
  auto st = db.prepare("SELECT count(*), sum(c39) FROM w");
  REQUIRE(st.step());
  const int64_t n = BatchInsert::kOneByOne + 30;
  CHECK(st.int64(0) == n);
  CHECK(st.int64(1) == (n - 1) * n / 2 * 100 + 39 * n);
}
