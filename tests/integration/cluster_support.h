// For the cluster-run tests: cluster folders (each rank a Kineto sample with its distributedInfo
// rank rewritten, in root/rank_<rank>/trace.json; or an Ascend rank in a PyTorch-on-Ascend rank
// folder), a table's rows as exact text, and two reports' findings and pack results compared.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "perfsage/v1/report.pb.h"
#include "store/database.h"
#include "store/file_bytes.h"
#include "test_support.h"

namespace perfsage::test {

inline void add_rank(const std::filesystem::path& root, const std::string& sample, int rank) {
  std::string text = store::read_file(samples_dir() / "kineto" / sample);
  auto at = text.find("\"rank\": ");
  REQUIRE(at != std::string::npos);
  auto end = text.find_first_not_of("0123456789", at + 8);
  text.replace(at, end - at, "\"rank\": " + std::to_string(rank));
  std::filesystem::path dir = root / ("rank_" + std::to_string(rank));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "trace.json", std::ios::binary) << text;
}

// One Ascend rank's profiler output: files copied into its ASCEND_PROFILER_OUTPUT folder, each
// (source, name there).
using AscendRankFiles = std::vector<std::pair<std::filesystem::path, std::string>>;

// The rank's folder as torch_npu's profiler writes one per rank of a job
// (<host>_<pid>_<time>_ascend_pt holding profiler_info_<rank>.json; collectors/ascend/layout.cpp
// reads the rank from that name), under `root`.
inline std::filesystem::path add_ascend_rank(const std::filesystem::path& root, int rank,
                                             const AscendRankFiles& files) {
  std::filesystem::path dir = root / (std::string("node0_") + std::to_string(40100 + rank) +
                                      "_20231109083545392_ascend_pt");
  std::filesystem::create_directories(dir / "ASCEND_PROFILER_OUTPUT");
  std::ofstream(dir / (std::string("profiler_info_") + std::to_string(rank) + ".json"),
                std::ios::binary)
      << "{\"rank_id\": " << rank << "}\n";
  for (const auto& [source, name] : files)
    std::filesystem::copy_file(source, dir / "ASCEND_PROFILER_OUTPUT" / name);
  return dir;
}

inline std::filesystem::path ascend_example_output() {
  return source_dir() / "examples" / "resnet50_rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT";
}

// Four different Ascend programs as four ranks: the bundled ResNet-50 example (op table,
// timeline, step trace), msprof-analyze's op table of a 910B training step with HCCL tasks, its
// timeline of a small CNN step (no op table: its device tasks stand for the ops) and its
// 8-task inference op table.
inline std::map<int, AscendRankFiles> ascend_rank_samples() {
  const auto example = ascend_example_output();
  const auto mstt = samples_dir() / "ascend" / "mstt";
  return {{0,
           {{example / "kernel_details.csv", "kernel_details.csv"},
            {example / "trace_view.json", "trace_view.json"},
            {example / "step_trace_time.csv", "step_trace_time.csv"}}},
          {1, {{mstt / "kernel_details_arith_util.csv", "kernel_details.csv"}}},
          {2, {{mstt / "trace_view.json", "trace_view.json"}}},
          {3, {{mstt / "kernel_details_minimal_names.csv", "kernel_details.csv"}}}};
}

// Ascend ranks without an op table (timelines and a step trace): two different programs.
inline std::map<int, AscendRankFiles> ascend_timeline_rank_samples() {
  const auto example = ascend_example_output();
  return {{0,
           {{example / "trace_view.json", "trace_view.json"},
            {example / "step_trace_time.csv", "step_trace_time.csv"}}},
          {1, {{samples_dir() / "ascend" / "mstt" / "trace_view.json", "trace_view.json"}}}};
}

// A cluster folder and each rank's own folder in it.
struct ClusterDirs {
  std::filesystem::path root;
  std::map<int, std::filesystem::path> ranks;
};

inline ClusterDirs kineto_cluster(const std::filesystem::path& root,
                                  const std::map<int, std::string>& samples) {
  ClusterDirs out{root, {}};
  for (const auto& [rank, sample] : samples) {
    add_rank(root, sample, rank);
    out.ranks[rank] = root / (std::string("rank_") + std::to_string(rank));
  }
  return out;
}

inline ClusterDirs ascend_cluster(const std::filesystem::path& root,
                                  const std::map<int, AscendRankFiles>& samples) {
  ClusterDirs out{root, {}};
  for (const auto& [rank, files] : samples) out.ranks[rank] = add_ascend_rank(root, rank, files);
  return out;
}

// Four different programs as four ranks: GPU traces with one and several streams, and a
// CPU-only rank, so that no rank's rows could stand for another's.
inline const std::map<int, std::string>& four_rank_samples() {
  static const std::map<int, std::string> ranks{
      {0, "hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz"},
      {1, "hta__critical_path_simple_add_benchmark_result_493459_1694039959_trace.json.gz"},
      {2, "hta__critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz"},
      {34, "hta__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"}};
  return ranks;
}

// A data-parallel cluster: one real two-rank DDP trace (NCCL AllReduce kernels, activation
// chains) as ranks 0 and 1, and another program as rank 2, which runs no collective.
inline const std::map<int, std::string>& ddp_rank_samples() {
  static const std::map<int, std::string> ranks{
      {0, "hta__df_index_resolver_df_index_resolver.json.gz"},
      {1, "hta__df_index_resolver_df_index_resolver.json.gz"},
      {2, "hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz"}};
  return ranks;
}

// The columns of `table` but run_id.
inline std::vector<std::string> columns_but_run(store::Database& db, const std::string& table) {
  auto columns = store::table_columns(db, table);
  std::erase(columns, "run_id");
  return columns;
}

// Every row of `table` that `where` selects, in stored order, each value as exact text (REAL
// with 17 significant digits, which reads back to the same double).
inline std::vector<std::string> rows_of(store::Database& db, const std::string& table,
                                        const std::vector<std::string>& columns,
                                        const std::string& where) {
  std::string values;
  for (const auto& c : columns) {
    if (!values.empty()) values += " || '|' || ";
    values += "CASE typeof(\"" + c + "\") WHEN 'real' THEN printf('%!.17g', \"" + c +
              "\") ELSE quote(\"" + c + "\") END";
  }
  auto st =
      db.prepare("SELECT " + values + " FROM \"" + table + "\" WHERE " + where + " ORDER BY rowid");
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.text(0));
  return out;
}

// `b` has every finding of `a`, in order, with its id, severity, gain and share (to 1e-12),
// title, message and evidence, and every pack's status and fired rules.
inline void check_same_findings(const perfsage::v1::AnalysisReport& a,
                                const perfsage::v1::AnalysisReport& b) {
  REQUIRE(b.recommendations_size() == a.recommendations_size());
  for (int i = 0; i < a.recommendations_size(); ++i) {
    const auto &x = a.recommendations(i), &y = b.recommendations(i);
    INFO(x.pack() << "/" << x.rule() << ": " << x.title());
    CHECK(y.id() == x.id());
    CHECK(y.severity() == x.severity());
    CHECK(y.estimated_gain_us() == Approx(x.estimated_gain_us()).epsilon(1e-12));
    CHECK(y.estimated_gain_share() == Approx(x.estimated_gain_share()).epsilon(1e-12));
    CHECK(y.title() == x.title());
    CHECK(y.message() == x.message());
    REQUIRE(y.evidence_size() == x.evidence_size());
    for (int e = 0; e < x.evidence_size(); ++e)
      CHECK(y.evidence(e).display() == x.evidence(e).display());
  }
  REQUIRE(b.packs_size() == a.packs_size());
  for (int i = 0; i < a.packs_size(); ++i) {
    CHECK(b.packs(i).name() == a.packs(i).name());
    CHECK(b.packs(i).status() == a.packs(i).status());
    CHECK(b.packs(i).fired() == a.packs(i).fired());
  }
}

}  // namespace perfsage::test
