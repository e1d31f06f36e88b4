// How fast can the store take records on this machine? Measures, in one run and on the same
// disk, RunWriter storing Kineto-shaped host events and Ascend op-table rows (both column
// blocks, store/event_block.h), next to baselines: the same host events as one row each in the
// 13-column table they had before blocks (with and without its (run_id, kind) index), and a
// floor of three columns (run_id, kind, name) per row. Each case inserts N records in one
// transaction into a fresh store file and commits (WAL, synchronous=NORMAL, as in production).
// Usage: store_ceiling_bench [ROWS=1000000] [DIR=/tmp]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

#include "store/database.h"
#include "store/records.h"
#include "store/run_writer.h"

using namespace perfsage;
namespace fs = std::filesystem;

namespace {

fs::path fresh(const fs::path& dir, const char* name) {
  fs::path p = dir / name;
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p.string() + suffix);
  return p;
}

store::HostEvent host_event(int64_t i) {
  store::HostEvent e;
  e.kind = i % 2 ? "runtime" : "cpu_op";
  e.name = i % 2 ? "cudaLaunchKernel" : "aten::convolution";
  e.pid = 1234;
  e.tid = 1240;
  e.start_ns = i * 1000;
  e.dur_ns = 700;
  e.external_id = i / 2;
  if (i % 2) e.correlation = i;
  if (i % 2 == 0) e.input_dims = "[[32, 3, 224, 224], [64, 3, 7, 7]]";
  return e;
}

store::OpTask op_task(int64_t i) {
  store::OpTask t;
  t.device_id = 0;
  t.step = i / 1000;
  t.stream_id = 2;
  t.task_id = i;
  t.name = "Default/network/Conv2D-op" + std::to_string(i % 200);
  t.type = "Conv2D";
  t.core_type = "AI_CORE";
  t.start_ns = i * 2000;
  t.dur_ns = 1500;
  t.block_dim = 32;
  t.input_shapes = "\"32,3,224,224;64,3,7,7\"";
  t.input_dtypes = "FLOAT16;FLOAT16";
  t.input_formats = "NC1HWC0;FRACTAL_Z";
  t.output_shapes = "\"32,64,112,112\"";
  t.output_dtypes = "FLOAT16";
  t.output_formats = "NC1HWC0";
  t.aicore_time_us = 1.4;
  t.mac_ratio = 0.6;
  t.vec_ratio = 0.1;
  t.mte2_ratio = 0.3;
  return t;
}

double run_case(const fs::path& path, int64_t rows,
                const std::function<void(store::Database&, int64_t)>& fill) {
  store::Database db(path.string());
  auto t0 = std::chrono::steady_clock::now();
  fill(db, rows);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void writer_fill(store::Database& db, int64_t rows,
                 const std::function<void(store::RunWriter&, int64_t)>& add) {
  store::RunWriter w(db, store::RunHeader{"bench", {"x"}, "fp", "2024-01-01T00:00:00Z"});
  for (int64_t i = 0; i < rows; ++i) add(w, i);
  w.commit();
}

// Host events one row each, as the store kept them before column blocks (schema version 7).
void row_fill(store::Database& db, int64_t n, bool indexed) {
  db.exec(R"sql(CREATE TABLE he(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT 0, kind TEXT NOT NULL,
  name TEXT NOT NULL, pid INTEGER, tid INTEGER, start_ns INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, external_id INTEGER, correlation INTEGER,
  input_dims TEXT, input_types TEXT, args TEXT))sql");
  if (indexed) db.exec("CREATE INDEX he_run ON he(run_id, kind)");
  store::Transaction txn(db);
  auto st = db.prepare("INSERT INTO he VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)");
  for (int64_t i = 0; i < n; ++i) {
    auto e = host_event(i);
    st.bind(1, int64_t{1}).bind(2, e.rank).bind_static(3, e.kind).bind_static(4, e.name);
    st.bind(5, e.pid).bind(6, e.tid).bind(7, e.start_ns).bind(8, e.dur_ns);
    st.bind(9, e.external_id).bind(10, e.correlation);
    if (e.input_dims)
      st.bind_static(11, *e.input_dims);
    else
      st.bind_null(11);
    st.bind_null(12).bind_null(13);
    st.run();
  }
  txn.commit();
}

}  // namespace

int main(int argc, char** argv) {
  int64_t rows = argc > 1 ? std::stoll(argv[1]) : 1000000;
  fs::path dir = argc > 2 ? argv[2] : "/tmp";

  // Floor: three columns per row, no index, prepared once, one transaction.
  double floor_s =
      run_case(fresh(dir, "ceiling_floor.db"), rows, [](store::Database& db, int64_t n) {
        db.exec("CREATE TABLE floor(run_id INTEGER, kind TEXT, name TEXT)");
        store::Transaction txn(db);
        auto st = db.prepare("INSERT INTO floor VALUES(?1, ?2, ?3)");
        for (int64_t i = 0; i < n; ++i) {
          st.bind(1, int64_t{1}).bind_static(2, i % 2 ? "runtime" : "cpu_op");
          st.bind_static(3, i % 2 ? "cudaLaunchKernel" : "aten::convolution");
          st.run();
        }
        txn.commit();
      });
  double host_s = run_case(fresh(dir, "ceiling_host.db"), rows, [](store::Database& db, int64_t n) {
    writer_fill(db, n, [](store::RunWriter& w, int64_t i) { w.add(host_event(i)); });
  });
  double rows_s = run_case(fresh(dir, "ceiling_rows.db"), rows,
                           [](store::Database& db, int64_t n) { row_fill(db, n, true); });
  double rows_noidx_s = run_case(fresh(dir, "ceiling_rows_noidx.db"), rows,
                                 [](store::Database& db, int64_t n) { row_fill(db, n, false); });
  double op_s = run_case(fresh(dir, "ceiling_op.db"), rows, [](store::Database& db, int64_t n) {
    writer_fill(db, n, [](store::RunWriter& w, int64_t i) { w.add(op_task(i)); });
  });

  auto line = [&](const char* what, double s) {
    std::printf("%-52s %7.2f s  %6.0f k rows/s  %5.2fx the floor's time\n", what, s,
                static_cast<double>(rows) / s / 1e3, s / floor_s);
  };
  std::printf("%lld rows per case, stores in %s\n", static_cast<long long>(rows), dir.c_str());
  line("floor: 3 columns, no index", floor_s);
  line("host events as rows (13 columns), no index", rows_noidx_s);
  line("host events as rows (13 columns, (run_id, kind) index)", rows_s);
  line("host events via RunWriter (column blocks)", host_s);
  line("op_tasks via RunWriter (column blocks)", op_s);
  for (const char* name : {"ceiling_floor.db", "ceiling_host.db", "ceiling_rows.db",
                           "ceiling_rows_noidx.db", "ceiling_op.db"})
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove((dir / name).string() + suffix);
  return 0;
}
