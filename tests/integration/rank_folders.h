// Cluster folders for the cluster-run tests: each rank a different Kineto sample with its
// distributedInfo rank rewritten, in root/rank_<rank>/trace.json.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

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

}  // namespace perfsage::test
