// Where an Ascend profiling file sits: the rank and device it belongs to, and whether a sibling
// file of the same rank supersedes it (so the same tasks are not counted twice).
//
// Layouts understood (formats.md §2): `PROF_*/device_N/{summary,timeline}/` (CANN 6/7),
// `PROF_*/mindstudio_profiler_output/` (CANN 8), `*_ascend_pt|*_ascend_ms/ASCEND_PROFILER_OUTPUT/`
// (framework profiler, one rank), a parent holding one `*_ascend_pt` per rank, and any of these
// under a `rank_N` folder.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace perfsage::collectors::ascend {

struct Location {
  int64_t rank = 0;
  std::optional<int64_t> device_id;  // from a `device_N` folder
  std::filesystem::path rank_dir;    // the `*_ascend_pt` / `*_ascend_ms` folder, if any
};

// Rank: a `rank_N` folder wins; then the `*_ascend_pt` folder (its `profiler_info_N.json`, else
// its position among the sorted `*_ascend_pt` siblings); then `device_N`; else 0.
Location locate(const std::filesystem::path& file);

// For an msprof `op_summary*.csv` inside a framework-profiler rank folder that also holds
// `ASCEND_PROFILER_OUTPUT/kernel_details.csv`: that file (it has the same tasks plus step ids).
std::optional<std::filesystem::path> superseding_op_table(const std::filesystem::path& file);
// For an msprof `msprof_*.json` timeline inside a rank folder that also holds
// `ASCEND_PROFILER_OUTPUT/trace_view.json`: that file.
std::optional<std::filesystem::path> superseding_timeline(const std::filesystem::path& file);

// File name without a trailing `.gz`.
std::string base_name(const std::filesystem::path& file);

}  // namespace perfsage::collectors::ascend
