// Benchmark: op tables (scaled up from the real kernel_details sample) into a file store.
// Prints, per size, the CSV scan rate alone and the end-to-end ingest rate (detect, parse,
// insert, commit) in rows/s and MB/s, and the process's peak RSS.
// Usage: ascend_op_table_bench [--memory] [SAMPLE.csv] [ROWS...]   (default: the shared sample,
// 100000 1000000)
//        ascend_op_table_bench --ingest FILE.csv [STORE]   (ingest only, into an in-memory
//        store or a new file store: for profilers)
#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

#include "ascend_scale.h"
#include "collectors/common/csv_reader.h"
#include "collectors/ingest.h"
#include "store/database.h"
#include "store/run_writer.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto sec = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return sec(ru.ru_utime) + sec(ru.ru_stime);
}

long peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024;
}

// Ingests `csv` into a store and prints wall and CPU time; returns the records stored.
// Opening the store is part of the measured time.
int64_t timed_ingest(const fs::path& csv, std::unique_ptr<perfsage::store::Database>& db,
                     const std::string& store, const char* label) {
  double mb = static_cast<double>(fs::file_size(csv)) / 1e6;
  auto t0 = Clock::now();
  double c0 = cpu_seconds();
  db = std::make_unique<perfsage::store::Database>(store);
  perfsage::store::RunWriter w(*db, {"bench", {csv.string()}, "bench", "now"});
  auto result = perfsage::collectors::ingest(perfsage::collectors::expand_inputs({csv}), w,
                                             perfsage::collectors::Mode::strict);
  auto tc = Clock::now();
  w.commit();
  double commit = seconds_since(tc);
  double t = seconds_since(t0);
  double cpu = cpu_seconds() - c0;
  int64_t stored = result.files.at(0).records;
  std::cout << "  ingest into " << label << " store: " << t * 1e3 << " ms wall, " << cpu * 1e3
            << " ms cpu, " << stored << " records, " << static_cast<int64_t>(stored / t)
            << " rows/s (" << static_cast<int64_t>(stored / cpu) << " per cpu-s), " << mb / t
            << " MB/s, peak RSS " << peak_rss_mb() << " MB, commit " << commit * 1e3 << " ms\n";
  return stored;
}

}  // namespace

int main(int argc, char** argv) {
  if ((argc == 3 || argc == 4) && std::string(argv[1]) == "--ingest") {
    std::unique_ptr<perfsage::store::Database> db;
    timed_ingest(argv[2], db, argc == 4 ? argv[3] : ":memory:", argc == 4 ? "file" : "memory");
    return 0;
  }
  fs::path sample = fs::path(PERFSAGE_SOURCE_DIR) / ".." / "shared" / "samples" / "ascend" /
                    "mstt" / "kernel_details_arith_util.csv";
  std::vector<int64_t> sizes;
  bool memory = false;  // --memory: an in-memory store, to separate SQLite file I/O
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--memory")
      memory = true;
    else if (a.find_first_not_of("0123456789") == std::string::npos)
      sizes.push_back(std::stoll(a));
    else
      sample = a;
  }
  if (sizes.empty()) sizes = {100000, 1000000};
  std::ifstream in(sample, std::ios::binary);
  if (!in) {
    std::cerr << "cannot read " << sample << "\n";
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();

  fs::path dir =
      fs::temp_directory_path() / ("perfsage-ascend-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (int64_t rows : sizes) {
    fs::path csv = dir / "kernel_details.csv";
    fs::path db_path = dir / "store.db";
    fs::remove(db_path);
    {
      std::string data = perfsage::bench::scale_op_table(text.str(), rows);
      std::ofstream(csv, std::ios::binary) << data;
      // Scan only: the CSV reader over the in-memory text.
      auto t0 = Clock::now();
      perfsage::collectors::CsvReader r(data);
      size_t fields = 0;
      while (r.next()) fields += r.size();
      double scan = seconds_since(t0);
      std::cout << rows << " rows, " << data.size() / 1e6 << " MB: csv scan " << scan * 1e3
                << " ms (" << static_cast<int64_t>(rows / scan) << " rows/s, "
                << data.size() / 1e6 / scan << " MB/s, " << fields << " fields)\n";
    }
    std::unique_ptr<perfsage::store::Database> store;
    timed_ingest(csv, store, memory ? std::string(":memory:") : db_path.string(),
                 memory ? "memory" : "file");
    perfsage::store::Database& db = *store;
    // Store only: the same records inserted again from memory (no file, no parsing).
    std::vector<perfsage::store::OpTask> tasks;
    {
      auto st = db.prepare("SELECT name, type, core_type, start_ns, dur_ns, metrics FROM op_tasks");
      while (st.step()) {
        perfsage::store::OpTask t;
        t.name = st.text(0);
        t.type = st.text(1);
        t.core_type = st.text(2);
        t.start_ns = st.int64(3);
        t.dur_ns = st.int64(4);
        if (!st.is_null(5)) t.metrics = st.text(5);
        tasks.push_back(std::move(t));
      }
    }
    auto t1 = Clock::now();
    double c1 = cpu_seconds();
    {
      perfsage::store::RunWriter w2(db, {"bench", {}, "bench2", "now"});
      for (const auto& t : tasks) w2.add(t);
      w2.commit();
    }
    double ts = seconds_since(t1), cs = cpu_seconds() - c1;
    std::cout << "  store insert only: " << ts * 1e3 << " ms wall, " << cs * 1e3 << " ms cpu ("
              << static_cast<int64_t>(tasks.size() / cs) << " rows per cpu-s)\n";
  }
  fs::remove_all(dir);
  return 0;
}
