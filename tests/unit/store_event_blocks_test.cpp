// Raw events as column blocks: what goes in through RunWriter comes out of host_events and
// device_events unchanged, across block boundaries, nulls and extreme values; damaged blocks
// are reported, and stores written before the blocks existed are converted on open.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <limits>

#include "store/database.h"
#include "store/event_block.h"
#include "store/event_block_sink.h"
#include "store/run_registry.h"
#include "store/run_writer.h"
#include "store/schema.h"
#include "store/text_ids.h"
#include "test_support.h"

using namespace perfsage::store;

namespace {

RunHeader header(const std::string& fp = "fp") {
  return {"job", {"/x/trace.json"}, fp, "2026-01-01T00:00:00Z"};
}

int64_t one_int(Database& db, const std::string& sql, int64_t run_id = 0) {
  auto st = db.prepare(sql);
  if (sql.find("?1") != std::string::npos) st.bind(1, run_id);
  REQUIRE(st.step());
  return st.is_null(0) ? -999 : st.int64(0);
}

HostEvent host(const std::string& kind, int64_t i) {
  HostEvent e;
  e.kind = kind;
  e.name = "aten::op" + std::to_string(i % 7);
  e.rank = 3;
  e.pid = 100;
  if (i % 3 == 0) e.tid = i;  // a column with some nulls
  e.start_ns = 1'700'000'000'000'000'000 + i * 1000;
  e.dur_ns = i % 11;
  e.external_id = i;
  if (i % 2 == 0) e.args = "{\"i\":" + std::to_string(i) + "}";
  return e;
}

}  // namespace

TEST_CASE("events read back through the virtual tables as they were written") {
  Database db(":memory:");
  RunWriter w(db, header());
  // More rows than one block holds, two kinds interleaved.
  const int64_t n = static_cast<int64_t>(EventBlockSink::kBlockRows) + 1000;
  for (int64_t i = 0; i < n; ++i) w.add(host(i % 4 == 0 ? "runtime" : "cpu_op", i));
  DeviceEvent k;
  k.kind = "kernel";
  k.name = "volta_sgemm";
  k.start_ns = std::numeric_limits<int64_t>::max();
  k.dur_ns = std::numeric_limits<int64_t>::min();
  k.occupancy = 37.5;
  k.grid = "[1, 2, 3]";
  k.bytes = -5;
  w.add(k);
  w.commit();
  int64_t run = w.run_id();

  CHECK(one_int(db, "SELECT count(*) FROM host_events WHERE run_id = ?1", run) == n);
  CHECK(one_int(db, "SELECT count(*) FROM host_events WHERE run_id = ?1 AND kind = 'runtime'",
                run) == n / 4);
  CHECK(one_int(db,
                "SELECT count(*) FROM host_events WHERE run_id = ?1 AND kind IN "
                "('runtime', 'cpu_op', 'absent')",
                run) == n);
  CHECK(one_int(db, "SELECT sum(external_id) FROM host_events WHERE run_id = ?1", run) ==
        n * (n - 1) / 2);
  CHECK(one_int(db, "SELECT count(tid) FROM host_events WHERE run_id = ?1", run) == (n + 2) / 3);
  CHECK(one_int(db, "SELECT count(args) FROM host_events", run) == (n + 1) / 2);
  CHECK(one_int(db, "SELECT count(*) FROM host_events WHERE run_id = ?1 + 1", run) == 0);
  // Every field of one row, read back by a non-key column.
  auto st = db.prepare(
      "SELECT rank, kind, name, pid, tid, start_ns, dur_ns, args, input_dims FROM host_events "
      "WHERE external_id = 33000");
  REQUIRE(st.step());
  HostEvent want = host("runtime", 33000);
  CHECK(st.int64(0) == 3);
  CHECK(st.text(1) == "runtime");
  CHECK(st.text(2) == want.name);
  CHECK(st.int64(3) == 100);
  CHECK(st.int64(4) == 33000);
  CHECK(st.int64(5) == want.start_ns);
  CHECK(st.int64(6) == want.dur_ns);
  CHECK(st.text(7) == *want.args);
  CHECK(st.is_null(8));
  CHECK_FALSE(st.step());
  // Rows of one kind keep their order.
  auto order = db.prepare("SELECT external_id FROM host_events WHERE kind = 'cpu_op'");
  int64_t prev = -1;
  bool ordered = true;
  while (order.step()) {
    ordered = ordered && order.int64(0) > prev;
    prev = order.int64(0);
  }
  CHECK(ordered);

  auto d =
      db.prepare("SELECT start_ns, dur_ns, occupancy, grid, bytes, registers FROM device_events");
  REQUIRE(d.step());
  CHECK(d.int64(0) == std::numeric_limits<int64_t>::max());
  CHECK(d.int64(1) == std::numeric_limits<int64_t>::min());
  CHECK(d.real(2) == 37.5);
  CHECK(d.text(3) == "[1, 2, 3]");
  CHECK(d.int64(4) == -5);
  CHECK(d.is_null(5));
}

TEST_CASE("an ingest that is not committed leaves no event blocks") {
  Database db(":memory:");
  {
    RunWriter w(db, header());
    w.add(host("cpu_op", 1));
    w.flush_events();  // written inside the transaction, then rolled back
    w.add(host("cpu_op", 2));
  }
  CHECK(one_int(db, "SELECT count(*) FROM event_blocks") == 0);
  CHECK(one_int(db, "SELECT count(*) FROM host_events") == 0);
}

TEST_CASE("deleting a run deletes its event blocks and nothing else") {
  Database db(":memory:");
  int64_t runs[2];
  for (int r = 0; r < 2; ++r) {
    RunWriter w(db, header("fp" + std::to_string(r)));
    for (int i = 0; i < 10; ++i) w.add(host("cpu_op", i));
    w.commit();
    runs[r] = w.run_id();
  }
  delete_run(db, runs[0]);
  CHECK(one_int(db, "SELECT count(*) FROM host_events") == 10);
  CHECK(one_int(db, "SELECT count(*) FROM host_events WHERE run_id = ?1", runs[1]) == 10);
}

TEST_CASE("a damaged event block is an error that names it, not a crash") {
  Database db(":memory:");
  RunWriter w(db, header());
  for (int i = 0; i < 100; ++i) w.add(host("cpu_op", i));
  w.commit();
  SECTION("cut short") {
    db.exec("UPDATE event_blocks SET data = substr(data, 1, 40)");
  }
  SECTION("unknown version") {
    db.exec("UPDATE event_blocks SET data = x'09' || data");
  }
  SECTION("overlong varint") {
    db.exec("UPDATE event_blocks SET data = x'01ffffffffffffffffffffffff'");
  }
  auto st = db.prepare("SELECT sum(length(args)), sum(tid), max(name) FROM host_events");
  try {
    st.step();
    FAIL("a damaged block was read without an error");
  } catch (const StoreError& e) {
    CHECK_THAT(e.what(), Catch::Contains("event block"));
  }
}

TEST_CASE("the block reader rejects every truncation of a valid block") {
  EventBlockBuilder b(host_event_schema());
  for (int64_t i = 0; i < 50; ++i) {
    b.set_int(1, i);
    b.set_text(3, "name" + std::to_string(i % 3));
    for (int c : {4, 5, 8, 9}) i % 2 ? b.set_int(c, -i) : b.set_null(c);
    b.set_int(6, i * 1000);
    b.set_int(7, 5);
    for (int c : {10, 11, 12}) b.set_null(c);
    b.end_row();
  }
  std::string block = b.finish();
  auto read_all = [](const std::string& bytes) {
    EventBlockReader r(host_event_schema(), reinterpret_cast<const uint8_t*>(bytes.data()),
                       bytes.size());
    int64_t sum = 0;
    for (size_t row = 0; row < r.rows(); ++row)
      for (int c : {1, 4, 6})
        if (!r.is_null(c, row)) sum += r.int_at(c, row);
    for (size_t row = 0; row < r.rows(); ++row)
      sum += static_cast<int64_t>(r.text_at(3, row).size());
    return sum;
  };
  // ranks 0..49, minus the odd values of columns 4, times 1000 for column 6, 5-byte names.
  CHECK(read_all(block) == 1225 - 625 + 1225 * 1000 + 50 * 5);
  for (size_t len = 0; len < block.size(); ++len) {
    INFO("truncated to " << len << " of " << block.size() << " bytes");
    CHECK_THROWS_AS(read_all(block.substr(0, len)), StoreError);
  }
}

namespace {

// A host event block of rank 0 whose rows hold only these names (null for nullptr).
std::string names_block(std::vector<const char*> names) {
  EventBlockBuilder b(host_event_schema());
  for (const char* n : names) {
    b.set_int(1, 0);  // rank
    n ? b.set_text(3, n) : b.set_null(3);
    for (int c : {4, 5, 6, 7, 8, 9, 10, 11, 12}) b.set_null(c);
    b.end_row();
  }
  return b.finish();
}

}  // namespace

TEST_CASE("texts interned per block dictionary get one id per text across blocks") {
  // Two blocks whose dictionaries hold the same names in different orders, with nulls.
  std::string first = names_block({"aten::mm", "aten::add", "aten::mm", nullptr, "aten::relu"}),
              second = names_block({nullptr, "aten::relu", "aten::add", "aten::add", "aten::mm"});
  TextIds ids;
  BlockTextIds column(ids, 3);
  std::vector<std::string> seen;
  for (const std::string* bytes : {&first, &second}) {
    EventBlockReader r(host_event_schema(), reinterpret_cast<const uint8_t*>(bytes->data()),
                       bytes->size());
    column.start_block(r);
    for (size_t row = 0; row < r.rows(); ++row) {
      if (r.is_null(3, row)) continue;
      uint32_t id = column.at(r, row);
      CHECK(ids.text(id) == r.text_at(3, row));
      CHECK(id == ids.id(r.text_at(3, row)));
      seen.push_back(ids.text(id));
    }
  }
  CHECK(ids.size() == 3);
  CHECK(seen == std::vector<std::string>{"aten::mm", "aten::add", "aten::mm", "aten::relu",
                                         "aten::relu", "aten::add", "aten::add", "aten::mm"});
}

TEST_CASE("a value per block dictionary entry is worked out once per block, on first use") {
  std::string first = names_block({"aten::mm", "aten::add", "aten::mm", "aten::mm"}),
              second = names_block({"aten::add", "aten::relu", "aten::add"});
  BlockTextValues<size_t> lengths(3);
  std::vector<std::string> asked;
  std::vector<size_t> got;
  auto length = [&](std::string_view text) {
    asked.emplace_back(text);
    return text.size();
  };
  for (const std::string* bytes : {&first, &second}) {
    EventBlockReader r(host_event_schema(), reinterpret_cast<const uint8_t*>(bytes->data()),
                       bytes->size());
    lengths.start_block();
    for (size_t row = 0; row < r.rows(); ++row) got.push_back(lengths.at(r, row, length));
  }
  CHECK(got == std::vector<size_t>{8, 9, 8, 8, 9, 10, 9});
  // Each distinct text once per block, in the order first met; again in the next block.
  CHECK(asked == std::vector<std::string>{"aten::mm", "aten::add", "aten::add", "aten::relu"});
}

TEST_CASE("a store written before event blocks existed is converted on open") {
  perfsage::test::TempDir dir;
  auto path = (dir.path() / "v7.db").string();
  int64_t run;
  {
    Database db(path);
    RunWriter w(db, header());
    w.commit();
    run = w.run_id();
  }
  {
    // Turn the file back into a version-7 store holding rows in the old tables.
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &raw) == SQLITE_OK);
    std::string sql = R"sql(
DROP TABLE event_blocks; DROP TABLE kernel_groups; DROP TABLE op_block_dims;
DROP TABLE kernel_launch_ops; DROP TABLE api_totals; DROP TABLE IF EXISTS jobs;
DROP TABLE action_plans; DROP TABLE action_applies; DROP TABLE action_files;
DROP TABLE action_audit; DROP TABLE action_verdicts; DROP TABLE gpu_time_breakdown; DROP TABLE shape_alignment;
DROP TABLE findings; DROP TABLE pack_results; DROP TABLE comm_ops; DROP TABLE graph_cleanups;
DROP TABLE host_op_self; DROP TABLE host_blocking; DROP TABLE gpu_queues;
DROP TABLE gpu_collectives; DROP TABLE gpu_range_counters;
DROP TABLE gpu_collective_ranks;
ALTER TABLE hardware_specs DROP COLUMN vendor; ALTER TABLE hardware_specs DROP COLUMN arch;
ALTER TABLE hardware_specs DROP COLUMN isa; ALTER TABLE hardware_specs DROP COLUMN matrix_fp16;
ALTER TABLE hardware_specs DROP COLUMN matrix_bf16; ALTER TABLE hardware_specs DROP COLUMN matrix_tf32;
ALTER TABLE hardware_specs DROP COLUMN matrix_fp8;
DROP TABLE fusion_candidates; DROP TABLE transdata_chains;
CREATE TABLE fusion_candidates(
  run_id INTEGER NOT NULL, pattern TEXT NOT NULL, kind TEXT NOT NULL, pass TEXT, fix TEXT,
  source TEXT NOT NULL, graph TEXT, nodes TEXT NOT NULL, types TEXT NOT NULL, ops TEXT,
  fused INTEGER NOT NULL, count INTEGER, total_us REAL, share REAL);
CREATE TABLE transdata_chains(
  run_id INTEGER NOT NULL, kind TEXT NOT NULL, source TEXT NOT NULL, graph TEXT,
  nodes TEXT NOT NULL, transdata TEXT NOT NULL, formats TEXT, culprit TEXT, count INTEGER,
  total_us REAL, share REAL);
CREATE TABLE comm_ops(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT 0, step INTEGER, name TEXT NOT NULL,
  type TEXT, start_ns INTEGER, dur_ns INTEGER, transit_us REAL, wait_us REAL, sync_us REAL,
  idle_us REAL, bytes REAL, bandwidth_gbps REAL, transport TEXT, dtype TEXT);
CREATE TABLE pack_results(
  run_id INTEGER NOT NULL, pack TEXT NOT NULL, version TEXT, status TEXT NOT NULL,
  fired INTEGER NOT NULL, error TEXT, elapsed_ms REAL);
DELETE FROM schema_version WHERE version >= 8;
CREATE TABLE host_events(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT 0, kind TEXT NOT NULL,
  name TEXT NOT NULL, pid INTEGER, tid INTEGER, start_ns INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, external_id INTEGER, correlation INTEGER,
  input_dims TEXT, input_types TEXT, args TEXT);
CREATE TABLE device_events(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT 0, kind TEXT NOT NULL,
  name TEXT NOT NULL, device INTEGER, stream INTEGER, start_ns INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, correlation INTEGER, external_id INTEGER,
  grid TEXT, block TEXT, registers INTEGER, shared_mem INTEGER, blocks_per_sm REAL,
  warps_per_sm REAL, occupancy REAL, bytes INTEGER, bandwidth_gbps REAL, memcpy_kind TEXT,
  args TEXT);
INSERT INTO host_events VALUES(RUN, 0, 'cpu_op', 'aten::mm', 1, 2, 10, 5, 7, NULL, '[[2,2]]', NULL, NULL);
INSERT INTO host_events VALUES(RUN, 1, 'runtime', 'cudaLaunchKernel', 1, 2, 12, 1, 7, 9, NULL, NULL, '{}');
INSERT INTO device_events VALUES(RUN, 1, 'kernel', 'sgemm', 0, 7, 20, 4, 9, 7, '[1,1,1]', NULL,
  32, NULL, 0.5, NULL, 12.5, NULL, NULL, NULL, NULL);
CREATE TABLE op_tasks(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT 0, device_id INTEGER, step INTEGER,
  model_id INTEGER, stream_id INTEGER, task_id INTEGER, name TEXT NOT NULL, type TEXT NOT NULL,
  core_type TEXT NOT NULL, op_state TEXT, start_ns INTEGER, dur_ns INTEGER NOT NULL,
  wait_ns INTEGER, block_dim INTEGER, mix_block_dim INTEGER,
  input_shapes TEXT, input_dtypes TEXT, input_formats TEXT,
  output_shapes TEXT, output_dtypes TEXT, output_formats TEXT,
  aicore_time_us REAL, aiv_time_us REAL, cube_fops REAL, vector_fops REAL,
  mac_ratio REAL, vec_ratio REAL, scalar_ratio REAL, mte1_ratio REAL, mte2_ratio REAL,
  mte3_ratio REAL, fixpipe_ratio REAL, read_bytes REAL, write_bytes REAL, metrics TEXT);
CREATE INDEX op_tasks_run ON op_tasks(run_id);
INSERT INTO op_tasks(run_id, rank, name, type, core_type, start_ns, dur_ns, block_dim, mac_ratio,
  input_shapes, metrics) VALUES(RUN, 3, 'MatMul_1', 'MatMul', 'AI_CORE', NULL, 40, 24, 0.75,
  '4,16;16,8', '{"aic_icache_miss_rate":0.1}');
INSERT INTO op_tasks(run_id, name, type, core_type, start_ns, dur_ns)
  VALUES(RUN, 'Cast_2', 'Cast', 'AI_CPU', 100, 7);
)sql";
    for (auto at = sql.find("RUN"); at != std::string::npos; at = sql.find("RUN"))
      sql.replace(at, 3, std::to_string(run));
    char* err = nullptr;
    int rc = sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, &err);
    INFO((err ? err : ""));
    sqlite3_free(err);
    sqlite3_close(raw);
    REQUIRE(rc == SQLITE_OK);
  }
  Database db(path);
  CHECK(db.schema_version() == current_schema_version());
  CHECK(one_int(db,
                "SELECT count(*) FROM sqlite_schema WHERE name IN "
                "('host_events', 'device_events', 'op_tasks', 'op_tasks_run')") == 0);
  auto ops = db.prepare(
      "SELECT rank, name, start_ns, dur_ns, block_dim, mac_ratio, input_shapes, metrics, "
      "output_shapes FROM op_tasks WHERE run_id = ?1 ORDER BY rowid");
  ops.bind(1, run);
  REQUIRE(ops.step());
  CHECK(ops.int64(0) == 3);
  CHECK(ops.text(1) == "MatMul_1");
  CHECK(ops.is_null(2));
  CHECK(ops.int64(3) == 40);
  CHECK(ops.int64(4) == 24);
  CHECK(ops.real(5) == 0.75);
  CHECK(ops.text(6) == "4,16;16,8");
  CHECK(ops.text(7) == R"({"aic_icache_miss_rate":0.1})");
  CHECK(ops.is_null(8));
  REQUIRE(ops.step());
  CHECK(ops.text(1) == "Cast_2");
  CHECK_FALSE(ops.step());
  // The op block's span comes from the one op with a start.
  CHECK(one_int(db, "SELECT min_start_ns FROM event_blocks WHERE side = 'op_tasks'") == 100);
  CHECK(one_int(db, "SELECT max_end_ns FROM event_blocks WHERE side = 'op_tasks'") == 107);
  CHECK(one_int(db, "SELECT count(*) FROM host_events WHERE run_id = ?1", run) == 2);
  CHECK(one_int(db, "SELECT correlation FROM host_events WHERE kind = 'runtime'") == 9);
  CHECK(one_int(db, "SELECT min(min_start_ns) FROM event_blocks WHERE side != 'op_tasks'") == 10);
  CHECK(one_int(db, "SELECT max(max_end_ns) FROM event_blocks WHERE side != 'op_tasks'") == 24);
  auto st = db.prepare("SELECT name, rank, registers, occupancy, grid FROM device_events");
  REQUIRE(st.step());
  CHECK(st.text(0) == "sgemm");
  CHECK(st.int64(1) == 1);
  CHECK(st.int64(2) == 32);
  CHECK(st.real(3) == 12.5);
  CHECK(st.text(4) == "[1,1,1]");
}

TEST_CASE("read-only connections see the event tables") {
  perfsage::test::TempDir dir;
  auto path = (dir.path() / "r.db").string();
  {
    Database db(path);
    RunWriter w(db, header());
    for (int i = 0; i < 5; ++i) w.add(host("cpu_op", i));
    w.commit();
  }
  auto reader = Database::open_reader(path);
  CHECK(one_int(*reader, "SELECT count(*) FROM host_events") == 5);
}

TEST_CASE("each block records the time span of its events") {
  Database db(":memory:");
  RunWriter w(db, header());
  const int64_t n = static_cast<int64_t>(EventBlockSink::kBlockRows) * 2 + 5;
  for (int64_t i = 0; i < n; ++i) w.add(host("cpu_op", n - i));  // starts descending
  w.commit();
  CHECK(one_int(db, "SELECT count(*) FROM event_blocks") == 3);
  CHECK(one_int(db, "SELECT min(min_start_ns) FROM event_blocks") ==
        one_int(db, "SELECT min(start_ns) FROM host_events"));
  CHECK(one_int(db, "SELECT max(max_end_ns) FROM event_blocks") ==
        one_int(db, "SELECT max(start_ns + dur_ns) FROM host_events"));
  // Per block too: the bounds of the first block are those of its own rows.
  CHECK(one_int(db, "SELECT min_start_ns FROM event_blocks ORDER BY seq LIMIT 1") ==
        host("cpu_op", n - static_cast<int64_t>(EventBlockSink::kBlockRows) + 1).start_ns);
}

TEST_CASE("every field of an event lands in the column of its name") {
  // Distinct values per field: a column index that drifted from the schema swaps two of them.
  Database db(":memory:");
  RunWriter w(db, header());
  HostEvent h;
  h.rank = 1;
  h.kind = "cpu_op";
  h.name = "n";
  h.pid = 2;
  h.tid = 3;
  h.start_ns = 4;
  h.dur_ns = 5;
  h.external_id = 6;
  h.correlation = 7;
  h.input_dims = "dims";
  h.input_types = "types";
  h.args = "args";
  w.add(h);
  DeviceEvent d;
  d.rank = 11;
  d.kind = "kernel";
  d.name = "k";
  d.device = 12;
  d.stream = 13;
  d.start_ns = 14;
  d.dur_ns = 15;
  d.correlation = 16;
  d.external_id = 17;
  d.grid = "grid";
  d.block = "block";
  d.registers = 18;
  d.shared_mem = 19;
  d.blocks_per_sm = 20.5;
  d.warps_per_sm = 21.5;
  d.occupancy = 22.5;
  d.bytes = 23;
  d.bandwidth_gbps = 24.5;
  d.memcpy_kind = "HtoD";
  d.args = "dargs";
  w.add(d);
  w.commit();
  auto row = [&](const std::string& sql) {
    auto st = db.prepare(sql);
    REQUIRE(st.step());
    std::string out;
    for (int i = 0; i < st.column_count(); ++i) {
      if (i > 0) out += '|';
      out += st.text(i);
    }
    return out;
  };
  CHECK(row("SELECT run_id = " + std::to_string(w.run_id()) +
            ", rank, kind, name, pid, tid, start_ns, dur_ns, external_id, correlation, "
            "input_dims, input_types, args FROM host_events") ==
        "1|1|cpu_op|n|2|3|4|5|6|7|dims|types|args");
  CHECK(row("SELECT rank, kind, name, device, stream, start_ns, dur_ns, correlation, "
            "external_id, grid, block, registers, shared_mem, blocks_per_sm, warps_per_sm, "
            "occupancy, bytes, bandwidth_gbps, memcpy_kind, args FROM device_events") ==
        "11|kernel|k|12|13|14|15|16|17|grid|block|18|19|20.5|21.5|22.5|23|24.5|HtoD|dargs");
}
