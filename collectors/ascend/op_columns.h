// Column plan for op_summary / kernel_details tables: which OpTask field each header feeds, for
// both name families (formats.md §3.1), with or without the `aic_` / `aiv_` metric prefixes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/common/csv_reader.h"

namespace perfsage::collectors::ascend {

enum class OpField {
  name,
  type,
  core,
  start,
  dur,
  wait,
  block,
  mix_block,
  device,
  step,
  model,
  stream,
  task,
  op_state,
  in_shapes,
  in_dtypes,
  in_formats,
  out_shapes,
  out_dtypes,
  out_formats,
  aicore_time,
  aiv_time,
  cube_fops,
  vector_fops,
  mac_ratio,
  vec_ratio,
  scalar_ratio,
  mte1_ratio,
  mte2_ratio,
  mte3_ratio,
  fixpipe_ratio,
  read_kb,
  write_kb,
  metric  // anything else: kept in OpTask::metrics
};
constexpr int kRatioCount = 7;  // mac .. fixpipe

// The core a prefixed metric was measured on.
enum class Side { none, cube, vector };

struct OpColumn {
  OpField field = OpField::metric;
  Side side = Side::none;
  std::string json_key;  // `"<header>":` ready to append to the metrics object
};

struct OpTablePlan {
  std::vector<OpColumn> columns;
  bool kernel_details = false;       // torch_npu spelling (Name, Accelerator Core, ...)
  std::vector<std::string> missing;  // required columns that are absent
};

OpTablePlan plan_op_table(const CsvHeader& header);

// True when the header looks like an op table of either family (name and duration columns).
bool looks_like_op_table(const CsvHeader& header);
// How many headers are identity/timing columns of either family (evidence of an op table
// whose required columns may be missing).
size_t known_op_columns(const CsvHeader& header);

// Type of an operator from its instance name, for files whose Type column is N/A:
// `trans_TransData_20` → TransData, `Conv2D17` → Conv2D, `hcom_allReduce__445_0` →
// hcom_allReduce_, `atomic_memset-1_18_186609_1` → atomic_memset.
std::string type_from_name(std::string_view name);

// Shape lists: literal quotes left by `"""4,1025"""` are removed; empty or all-scalar
// (`; ; ;`) lists become null.
std::optional<std::string> normalise_shapes(std::string_view cell);
// The same into `out` (its capacity reused); false when the cell holds no value.
bool normalise_shapes_into(std::string_view cell, std::string& out);
bool normalise_dtypes_into(std::string_view cell, std::string& out);
// Data type lists: the `DT_` prefix of each `;`-separated entry is removed.
std::optional<std::string> normalise_dtypes(std::string_view cell);
// Task Type / Accelerator Core: upper-case name; COMMUNICATION → HCCL; N/A → HCCL for hcom_*
// names, else UNKNOWN.
std::string normalise_core(std::string_view cell, std::string_view name);

}  // namespace perfsage::collectors::ascend
