// Op tasks as column blocks, rowid lookups into any block table, and SQL INSERT into them (pack
// test fixtures write rows that way).
#include <catch2/catch.hpp>
#include <string>

#include "store/block_scan.h"
#include "store/database.h"
#include "store/event_block_sink.h"
#include "store/run_writer.h"
#include "test_support.h"

using namespace perfsage::store;

namespace {

RunHeader header(const std::string& fp = "fp") {
  return {"job", {"/x/op_summary.csv"}, fp, "2026-01-01T00:00:00Z"};
}

std::string row(Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  REQUIRE(st.step());
  std::string out;
  for (int i = 0; i < st.column_count(); ++i) {
    if (i > 0) out += '|';
    out += st.is_null(i) ? "NULL" : st.text(i);
  }
  return out;
}

int64_t one_int(Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  REQUIRE(st.step());
  return st.int64(0);
}

OpTask op(int64_t i) {
  OpTask t;
  t.rank = i % 2;
  t.name = "MatMul_" + std::to_string(i % 5);
  t.type = "MatMul";
  t.core_type = "AI_CORE";
  t.start_ns = 1000 * i;
  t.dur_ns = i;
  if (i % 3 == 0) t.block_dim = 24;
  return t;
}

}  // namespace

TEST_CASE("every field of an op task lands in the column of its name") {
  Database db(":memory:");
  RunWriter w(db, header());
  OpTask t;
  t.rank = 1;
  t.device_id = 2;
  t.step = 3;
  t.model_id = 4;
  t.stream_id = 5;
  t.task_id = 6;
  t.name = "name";
  t.type = "type";
  t.core_type = "core";
  t.op_state = "state";
  t.start_ns = 7;
  t.dur_ns = 8;
  t.wait_ns = 9;
  t.block_dim = 10;
  t.mix_block_dim = 11;
  t.input_shapes = "is";
  t.input_dtypes = "id";
  t.input_formats = "if";
  t.output_shapes = "os";
  t.output_dtypes = "od";
  t.output_formats = "of";
  t.aicore_time_us = 12.5;
  t.aiv_time_us = 13.5;
  t.cube_fops = 14.5;
  t.vector_fops = 15.5;
  t.mac_ratio = 16.5;
  t.vec_ratio = 17.5;
  t.scalar_ratio = 18.5;
  t.mte1_ratio = 19.5;
  t.mte2_ratio = 20.5;
  t.mte3_ratio = 21.5;
  t.fixpipe_ratio = 22.5;
  t.read_bytes = 23.5;
  t.write_bytes = 24.5;
  t.metrics = "{}";
  w.add(t);
  w.commit();
  CHECK(row(db, "SELECT run_id = " + std::to_string(w.run_id()) +
                    ", rank, device_id, step, model_id, stream_id, task_id, name, type, core_type, "
                    "op_state, start_ns, dur_ns, wait_ns, block_dim, mix_block_dim, input_shapes, "
                    "input_dtypes, input_formats, output_shapes, output_dtypes, output_formats, "
                    "aicore_time_us, aiv_time_us, cube_fops, vector_fops, mac_ratio, vec_ratio, "
                    "scalar_ratio, mte1_ratio, mte2_ratio, mte3_ratio, fixpipe_ratio, read_bytes, "
                    "write_bytes, metrics FROM op_tasks") ==
        "1|1|2|3|4|5|6|name|type|core|state|7|8|9|10|11|is|id|if|os|od|of|12.5|13.5|14.5|15.5|"
        "16.5|17.5|18.5|19.5|20.5|21.5|22.5|23.5|24.5|{}");
}

TEST_CASE("op tasks keep their order, nulls and runs across blocks") {
  Database db(":memory:");
  const int64_t n = static_cast<int64_t>(EventBlockSink::kBlockRows) + 7;
  int64_t runs[2];
  for (int r = 0; r < 2; ++r) {
    RunWriter w(db, header("fp" + std::to_string(r)));
    for (int64_t i = 0; i < n + r; ++i) w.add(op(i));
    w.commit();
    runs[r] = w.run_id();
  }
  for (int r = 0; r < 2; ++r) {
    auto st = db.prepare("SELECT name, start_ns, dur_ns, block_dim FROM op_tasks WHERE run_id=?1");
    st.bind(1, runs[r]);
    int64_t i = 0;
    bool same = true;
    while (st.step()) {
      OpTask want = op(i++);
      same = same && st.text(0) == want.name && st.int64(1) == *want.start_ns &&
             st.int64(2) == want.dur_ns && st.is_null(3) == !want.block_dim;
    }
    CHECK(same);
    CHECK(i == n + r);
  }
  CHECK(one_int(db, "SELECT count(*) FROM op_tasks") == 2 * n + 1);
  CHECK(one_int(db, "SELECT count(*) FROM event_blocks WHERE side = 'op_tasks'") == 4);
}

TEST_CASE("a row found by its rowid is the row the scan gave that rowid") {
  perfsage::test::TempDir dir;
  auto path = (dir.path() / "s.db").string();
  const int64_t n = static_cast<int64_t>(EventBlockSink::kBlockRows) * 2 + 3;
  {
    Database db(path);
    RunWriter w(db, header());
    for (int64_t i = 0; i < n; ++i) w.add(op(i));
    w.commit();
  }
  auto reader = Database::open_reader(path);  // rowids hold across connections
  Database& db = *reader;
  // Every row, looked up again by rowid through a join, in a different order than scanned.
  CHECK(one_int(db,
                "SELECT count(*) FROM op_tasks a JOIN op_tasks b ON b.rowid = a.rowid "
                "WHERE a.start_ns = b.start_ns AND a.name = b.name") == n);
  CHECK(one_int(db, "SELECT count(DISTINCT rowid) FROM op_tasks") == n);
  int64_t last = one_int(db, "SELECT max(rowid) FROM op_tasks");
  CHECK(row(db, "SELECT start_ns FROM op_tasks WHERE rowid = " + std::to_string(last)) ==
        std::to_string((n - 1) * 1000));
  // A rowid past the block's rows, of no block, or of another run finds nothing.
  for (const std::string& where :
       {"rowid = " + std::to_string(last + 1), std::string("rowid = 12345"),
        "rowid = " + std::to_string(last) + " AND run_id = 99", std::string("rowid = 'x'"),
        std::string("rowid IN (-1, 0)")}) {
    INFO(where);
    CHECK(one_int(db, "SELECT count(*) FROM op_tasks WHERE " + where) == 0);
  }
  // Rowids of one table never name rows of another.
  CHECK(one_int(db, "SELECT count(*) FROM host_events WHERE rowid = " + std::to_string(last)) == 0);
  auto plan = db.prepare("EXPLAIN QUERY PLAN SELECT * FROM op_tasks WHERE rowid = 5");
  REQUIRE(plan.step());
  CHECK(plan.text(3).find("(rowid=?)") != std::string::npos);
}

TEST_CASE("SQL INSERT stores rows in the block tables, in order, typed like their columns") {
  Database db(":memory:");
  db.exec("INSERT INTO runs(id, inputs, fingerprint, created) VALUES(1, '[]', 'f', 'now')");
  db.exec(
      "INSERT INTO op_tasks(run_id, name, type, core_type, start_ns, dur_ns, block_dim) VALUES"
      "(1, 'Cast_1', 'Cast', 'AI_CPU', 0, 5000, NULL), (1, 'Add_1', 'Add', 'AI_CORE', '10', "
      "2000, 8.0)");
  db.exec(
      "INSERT INTO op_tasks(run_id, name, type, core_type, dur_ns) VALUES(1, 'Mul', 'Mul', "
      "'AI_CORE', 1)");
  CHECK(db.last_insert_rowid() == one_int(db, "SELECT max(rowid) FROM op_tasks"));
  auto st = db.prepare("SELECT name, start_ns, block_dim, rank FROM op_tasks ORDER BY rowid");
  std::string all;
  while (st.step())
    all += st.text(0) + "," + (st.is_null(1) ? "NULL" : st.text(1)) + "," +
           (st.is_null(2) ? "NULL" : st.text(2)) + "," + st.text(3) + ";";
  CHECK(all == "Cast_1,0,NULL,0;Add_1,10,8,0;Mul,NULL,NULL,0;");
  db.exec(
      "INSERT INTO host_events(run_id, kind, name, start_ns, dur_ns) VALUES(1, 'cpu_op', 'mm', "
      "5, 6)");
  CHECK(row(db, "SELECT kind, name, start_ns + dur_ns FROM host_events") == "cpu_op|mm|11");
  CHECK(row(db, "SELECT max_end_ns FROM event_blocks WHERE side = 'host_events'") == "11");

  auto fails_with = [&](const std::string& sql, const std::string& message) {
    INFO(sql);
    try {
      db.exec(sql);
      FAIL("no error");
    } catch (const StoreError& e) {
      CHECK_THAT(e.what(), Catch::Contains(message));
    }
  };
  fails_with(
      "INSERT INTO op_tasks(run_id, name, type, core_type, dur_ns) VALUES(1, 'x', 'x', "
      "'x', 'long')",
      "op_tasks.dur_ns expects INTEGER");
  fails_with(
      "INSERT INTO op_tasks(run_id, name, type, core_type, dur_ns, mac_ratio) VALUES(1, "
      "'x', 'x', 'x', 1, 'high')",
      "op_tasks.mac_ratio expects REAL");
  fails_with("INSERT INTO host_events(run_id, name, start_ns, dur_ns) VALUES(1, 'x', 1, 1)",
             "host_events.kind must not be NULL");
  fails_with("DELETE FROM op_tasks WHERE name = 'Mul'", "delete the run instead");
  fails_with("UPDATE op_tasks SET dur_ns = 0", "delete the run instead");
  CHECK(one_int(db, "SELECT count(*) FROM op_tasks") == 3);
}

TEST_CASE("shifting an integer column moves every value and leaves nulls and other columns") {
  const EventSchema& schema = op_task_schema();
  EventBlockBuilder b(schema);
  for (int64_t i = 0; i < 100; ++i) {
    OpTask t = op(i);
    if (i < 3 || i % 10 == 0) t.start_ns.reset();  // the first stored value is not row 0's
    append_op_task(b, t);
  }
  std::string block = b.finish();
  const int start = schema.start_column;
  std::string shifted = shift_int_column(schema, block, start, -5'000'000'000'000);
  EventBlockReader before(schema, reinterpret_cast<const uint8_t*>(block.data()), block.size());
  EventBlockReader after(schema, reinterpret_cast<const uint8_t*>(shifted.data()), shifted.size());
  REQUIRE(after.rows() == 100);
  for (size_t r = 0; r < 100; ++r) {
    INFO("row " << r);
    REQUIRE(after.is_null(start, r) == before.is_null(start, r));
    if (!before.is_null(start, r))
      CHECK(after.int_at(start, r) == before.int_at(start, r) - 5'000'000'000'000);
    CHECK(after.int_at(schema.dur_column, r) == before.int_at(schema.dur_column, r));
    CHECK(after.text_at(7, r) == before.text_at(7, r));
  }
  // A column without values is returned as it was; a text column cannot be shifted.
  OpTask bare = op(1);
  EventBlockBuilder b2(schema);
  append_op_task(b2, bare);
  std::string one = b2.finish();
  CHECK(shift_int_column(schema, one, 13, 7) == one);  // wait_ns: null in every row
  CHECK_THROWS_AS(shift_int_column(schema, one, 7, 7), StoreError);
  CHECK_THROWS_AS(shift_int_column(schema, one.substr(0, one.size() / 2), start, 7), StoreError);
}

TEST_CASE("RunWriter shifts the start times of the events and steps written after a mark") {
  Database db(":memory:");
  RunWriter w(db, header());
  HostEvent early;
  early.kind = "cpu_op";
  early.name = "before";
  early.start_ns = 10;
  early.dur_ns = 1;
  w.add(early);
  w.flush_events();
  int64_t blocks = one_int(db, "SELECT max(rowid) FROM event_blocks");
  for (int i = 0; i < 3; ++i) {
    HostEvent h = early;
    h.name = "after";
    h.start_ns = 100 + i;
    w.add(h);
    DeviceEvent d;
    d.kind = "kernel";
    d.name = "k";
    d.start_ns = 200 + i;
    d.dur_ns = 5;
    w.add(d);
  }
  Step s;
  s.step = 1;
  s.source = "profiler_step";
  s.start_ns = 100;
  s.dur_ns = 50;
  w.add(s);
  w.flush_events();
  w.shift_times(blocks, 0, 1000);
  w.commit();
  CHECK(row(db, "SELECT group_concat(start_ns) FROM host_events") == "10,1100,1101,1102");
  CHECK(row(db, "SELECT group_concat(start_ns) FROM device_events") == "1200,1201,1202");
  CHECK(row(db, "SELECT start_ns FROM steps") == "1100");
  CHECK(row(db,
            "SELECT group_concat(b) FROM (SELECT min_start_ns || '-' || max_end_ns AS b FROM "
            "event_blocks ORDER BY min_start_ns)") == "10-11,1100-1103,1200-1207");
}

TEST_CASE("a block scan that selects columns reads them as a full scan does, others as null") {
  Database db(":memory:");
  RunWriter w(db, header());
  const int64_t n = static_cast<int64_t>(EventBlockSink::kBlockRows) + 11;
  for (int64_t i = 0; i < n; ++i) w.add(op(i));
  w.commit();
  const EventSchema& schema = op_task_schema();
  const int c_name = column_index(schema, "name"), c_start = column_index(schema, "start_ns"),
            c_block = column_index(schema, "block_dim");
  BlockScan all(db, schema, w.run_id());
  BlockScan some(db, schema, w.run_id(), std::nullopt, {"name", "block_dim"});
  int64_t rows = 0;
  while (all.next()) {
    REQUIRE(some.next());
    auto &a = all.block(), &s = some.block();
    REQUIRE(a.rows() == s.rows());
    for (size_t r = 0; r < a.rows(); ++r, ++rows) {
      CHECK(s.text_at(c_name, r) == a.text_at(c_name, r));
      REQUIRE(s.is_null(c_block, r) == a.is_null(c_block, r));
      if (!a.is_null(c_block, r)) CHECK(s.int_at(c_block, r) == a.int_at(c_block, r));
      CHECK_THROWS_WITH(s.is_null(c_start, r), Catch::Contains("start_ns of op_tasks was not "
                                                               "selected"));
      CHECK(all.rowid(r) == some.rowid(r));
    }
  }
  CHECK_FALSE(some.next());
  CHECK(rows == n);
  // A damaged block is an error naming it, whichever way it is read.
  db.exec("UPDATE event_blocks SET data = substr(data, 1, 200)");
  BlockScan damaged(db, schema, w.run_id(), std::nullopt, {"name", "block_dim"});
  CHECK_THROWS_AS(damaged.next(), StoreError);
  CHECK_THROWS_AS(column_index(schema, "no_such_column"), StoreError);
}
