// A cluster run fanned out by rank (docs/scale-out.md, "Cluster runs"): RANKS ranks, each the
// real two-rank DDP trace (A100, NCCL AllReduce) with its distributedInfo rank rewritten, in
// rank_<r>/trace.json of one folder, submitted once. The baseline, measured first in the same
// run: one perfsaged in SQLite mode analysing the folder as one job. Then 1, 2 and 3 perfsaged
// in shared mode on one PostgreSQL (a fresh database each time), each with its own store and
// WORKERS workers: the time until the folder's job was fanned out, until its reduce started and
// until it was done; each daemon's jobs and analysis seconds (its workers' wall time); and the
// costs the scale-out's cost model needs: a rank job's mean analysis time and the reduce's.
//
//   shared_cluster_bench [--commit durable|async|fast] [RANKS=64] [DAEMONS=1,2,3] [WORKERS=1]
#include <fstream>
#include <map>

#include "bench/daemon_process.h"
#include "bench/pg_bench_support.h"
#include "store/file_bytes.h"

using namespace perfsage::bench;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

const fs::path kBin = fs::path(PERFSAGE_BINARY_DIR) / "bin";
const char* kSample = "kineto/hta__df_index_resolver_df_index_resolver.json.gz";

// A text field of the queue job `id` as JSON ("" when absent).
std::string job_field(httplib::Client& c, const std::string& id, const std::string& field) {
  auto r = c.Get("/api/v1/queue/" + id);
  if (!r || r->status != 200) return "";
  auto at = r->body.find("\"" + field + "\":\"");
  if (at == std::string::npos) return "";
  at += field.size() + 4;
  return r->body.substr(at, r->body.find('"', at) - at);
}

fs::path make_cluster(const fs::path& dir, int ranks, double* bytes) {
  const std::string trace = perfsage::store::read_file(fs::path(PERFSAGE_SAMPLES_DIR) / kSample);
  const auto at = trace.find("\"rank\": ");
  if (at == std::string::npos) throw std::runtime_error("no distributedInfo rank in the sample");
  const auto end = trace.find_first_not_of("0123456789", at + 8);
  const fs::path root = dir / "inputs" / "cluster";
  *bytes = 0;
  for (int r = 0; r < ranks; ++r) {
    std::string own = trace;
    own.replace(at, end - at, "\"rank\": " + std::to_string(r));
    const fs::path rank_dir = root / ("rank_" + std::to_string(r));
    fs::create_directories(rank_dir);
    std::ofstream(rank_dir / "trace.json", std::ios::binary) << own;
    *bytes += static_cast<double>(own.size());
  }
  return root;
}

struct Outcome {
  double fanned_s = -1, reduce_start_s = -1, done_s = 0;
  std::vector<long> jobs;          // per daemon
  std::vector<double> analysis_s;  // per daemon: its workers' wall time in jobs
  long peak_forkserver_kb = 0;
  std::string state;
};

Outcome run_fleet(const fs::path& dir, const fs::path& cluster, int daemons, int workers,
                  const std::string& uri) {
  auto started = start_fleet(kBin / "perfsaged", dir, daemons, workers, cluster.parent_path(), uri);
  auto& fleet = started.daemons;
  auto& clients = started.clients;
  Outcome out;
  auto t0 = Clock::now();
  auto r = clients[0]->Post("/api/v1/submit", "{\"path\":\"" + cluster.string() + "\"}",
                            "application/json");
  if (!r || r->status != 201) throw std::runtime_error("submit failed; see " + dir.string());
  auto at = r->body.find("\"id\":\"");
  if (at == std::string::npos) throw std::runtime_error("no job id in " + r->body);
  const std::string id = r->body.substr(at + 6, r->body.find('"', at + 6) - at - 6);
  const auto deadline = t0 + std::chrono::minutes(30);
  for (;;) {
    const std::string state = job_field(*clients[0], id, "state");
    const std::string kind = job_field(*clients[0], id, "kind");
    if (kind == "reduce" && out.fanned_s < 0) out.fanned_s = seconds_since(t0);
    if (kind == "reduce" && state == "running" && out.reduce_start_s < 0)
      out.reduce_start_s = seconds_since(t0);
    if (state == "done" || state == "failed" || state == "quarantined") {
      out.state = state;
      break;
    }
    if (Clock::now() > deadline)
      throw std::runtime_error("timed out waiting for the cluster run; see " + dir.string());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  out.done_s = seconds_since(t0);
  for (size_t i = 0; i < fleet.size(); ++i) {
    out.jobs.push_back(
        static_cast<long>(metric(*clients[i], "perfsage_jobs_finished_total{outcome=\"done\"}")));
    out.analysis_s.push_back(metric(*clients[i], "perfsage_analysis_duration_seconds_sum"));
    out.peak_forkserver_kb = std::max(out.peak_forkserver_kb, fleet[i]->status_kb("VmHWM", true));
  }
  return out;
}

int run(const BenchArgs& args) {
  const int ranks = args.number(0, 64);
  const std::vector<int> daemons = args.numbers(1, "1,2,3");
  const int workers = args.number(2, 1);
  auto server = start_postgres(args.commit);
  ScratchFolder scratch("perfsage-cluster-bench");
  const fs::path& dir = scratch.path();
  double bytes = 0;
  const fs::path cluster = make_cluster(dir, ranks, &bytes);
  std::printf(
      "%d ranks (%.1f MiB of trace), %d worker(s) per daemon, PostgreSQL commits: %s, "
      "%u hardware threads\n",
      ranks, bytes / (1 << 20), workers, args.commit.c_str(), std::thread::hardware_concurrency());
  auto base = run_fleet(dir / "sqlite", cluster, 1, workers, "");
  std::printf("%-24s | %s | done %7.2f s | 1.00x | forkserver peak %.0f MiB\n",
              "1 daemon, SQLite mode", base.state.c_str(), base.done_s,
              static_cast<double>(base.peak_forkserver_kb) / 1024.0);
  for (int n : daemons) {
    auto o = run_fleet(dir / (std::string("shared") + std::to_string(n)), cluster, n, workers,
                       server->fresh_database());
    double analysis = 0;
    long jobs = 0;
    for (size_t i = 0; i < o.jobs.size(); ++i) {
      analysis += o.analysis_s[i];
      jobs += o.jobs[i];
    }
    const double reduce_s = o.done_s - o.reduce_start_s;
    std::printf(
        "%-24s | %s | fanned out %5.2f s, reduce from %7.2f s for %5.2f s, done %7.2f s "
        "| %.2fx |",
        (std::to_string(n) + " daemon(s), shared").c_str(), o.state.c_str(), o.fanned_s,
        o.reduce_start_s, reduce_s, o.done_s, base.done_s / o.done_s);
    std::printf(" jobs per daemon");
    for (long j : o.jobs) std::printf(" %ld", j);
    std::printf(" | workers' wall %.1f s, per rank job %.3f s | forkserver peak %.0f MiB\n",
                analysis, jobs > 1 ? (analysis - reduce_s) / static_cast<double>(jobs - 1) : 0.0,
                static_cast<double>(o.peak_forkserver_kb) / 1024.0);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return bench_main(argc, argv, run);
}
