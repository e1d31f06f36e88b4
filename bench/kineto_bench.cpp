// Kineto ingest benchmark: file -> parsed -> stored -> committed into a fresh on-disk store.
// Prints MB/s (of uncompressed JSON), records/s and peak RSS. One configuration per process so
// the RSS figure belongs to it. Usage: kineto_bench TRACE STORE.db [threads=1|2]
// threads=1: everything on the calling thread; N > 1: scanner, N parsers and inserter threads.
// PERFSAGE_BENCH_CHUNK_KB overrides the chunk size (1024 KiB by default); PERFSAGE_BENCH_REPEAT=N
// ingests the trace N times in one process and prints the resident memory after each.
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "collectors/ingest.h"
#include "collectors/kineto/kineto_collector.h"
#include "store/database.h"
#include "store/file_bytes.h"
#include "store/run_writer.h"

using namespace perfsage;

namespace {
// Resident memory now (not the peak), from /proc/self/statm.
double resident_mb() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long pages = 0, resident = 0;
  int n = std::fscanf(f, "%lu %lu", &pages, &resident);
  std::fclose(f);
  return n == 2 ? static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e6
                : 0;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TRACE STORE.db [threads=1|2]\n", argv[0]);
    return 2;
  }
  std::filesystem::path trace = argv[1], db_path = argv[2];
  int threads = argc > 3 ? std::stoi(argv[3]) : 2;
  if (std::getenv("PERFSAGE_VERBOSE")) spdlog::set_level(spdlog::level::debug);
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::filesystem::remove(db_path.string() + suffix);
  }
  double json_mb = 0;
  if (store::is_gzip_file(trace)) {
    // Counted by streaming through a small buffer, so the count adds nothing to peak RSS.
    gzFile gz = gzopen(trace.c_str(), "rb");
    if (!gz) {
      std::fprintf(stderr, "cannot open %s\n", argv[1]);
      return 1;
    }
    std::vector<char> chunk(1 << 20);
    for (int n; (n = gzread(gz, chunk.data(), static_cast<unsigned>(chunk.size()))) > 0;)
      json_mb += static_cast<double>(n) / 1e6;
    gzclose(gz);
  } else {
    json_mb = static_cast<double>(std::filesystem::file_size(trace)) / 1e6;
  }
  store::Database db(db_path.string());
  // One ingest as a new run of the store; returns when it is committed.
  auto ingest = [&](std::chrono::steady_clock::time_point& collected) {
    collectors::RunHints hints;
    store::RunWriter w(db,
                       store::RunHeader{"bench", {trace.string()}, "fp", "2024-01-01T00:00:00Z"});
    collectors::CollectContext ctx(w, collectors::Mode::lenient, trace.string(), hints);
    collectors::kineto::KinetoOptions opt;
    opt.threaded = threads > 1;
    opt.parsers = threads > 1 ? threads : 1;
    if (const char* kb = std::getenv("PERFSAGE_BENCH_CHUNK_KB"))
      opt.chunk_bytes = std::stoul(kb) << 10;
    // PERFSAGE_BENCH_BLOCK_SHARE=S: kinds with that share of a chunk are encoded by the parsers.
    if (const char* share = std::getenv("PERFSAGE_BENCH_BLOCK_SHARE"))
      opt.parser_block_min_share = std::stod(share);
    // PERFSAGE_BENCH_OVERLAP_MB=0: inflate a .gz file whole before the scan (A/B runs).
    if (const char* mb = std::getenv("PERFSAGE_BENCH_OVERLAP_MB"))
      opt.overlap_inflate_bytes = std::stoul(mb) << 20;
    collectors::kineto::KinetoCollector(opt).collect(collectors::probe_file(trace), ctx);
    collected = std::chrono::steady_clock::now();
    w.commit();
    return ctx.records();
  };
  auto t0 = std::chrono::steady_clock::now();
  auto t_collected = t0;
  int64_t records = ingest(t_collected);
  auto t_end = std::chrono::steady_clock::now();
  double s = std::chrono::duration<double>(t_end - t0).count();
  // The commit is reported apart: it writes the run's pages and cannot overlap with parsing.
  double commit_s = std::chrono::duration<double>(t_end - t_collected).count();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  double rss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;
  // CPU seconds too: on a shared machine wall time includes waiting for other processes.
  double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  std::printf(
      "perfsage threads=%d  %.1f MB JSON  wall %.2f s = %.0f MB/s  cpu %.2f s = %.0f MB/cpu-s  "
      "%.2f M records/s  peak RSS %.0f MB (%.2fx JSON)  commit %.2f s\n",
      threads, json_mb, s, json_mb / s, cpu, json_mb / cpu, static_cast<double>(records) / s / 1e6,
      rss_mb, rss_mb / json_mb, commit_s);

  // PERFSAGE_BENCH_REPEAT=N: N ingests of the trace in this process, as a daemon that keeps
  // running does; the resident memory after each must not grow with the number already done.
  const char* repeat = std::getenv("PERFSAGE_BENCH_REPEAT");
  const int rounds = repeat ? std::stoi(repeat) : 1;
  for (int round = 1; rounds > 1 && round <= rounds; ++round) {
    auto collected = std::chrono::steady_clock::now();
    if (round > 1) ingest(collected);
    getrusage(RUSAGE_SELF, &ru);
    std::printf("after ingest %d: resident %.0f MB, peak %.0f MB\n", round, resident_mb(),
                static_cast<double>(ru.ru_maxrss) / 1024.0);
  }
  return 0;
}
