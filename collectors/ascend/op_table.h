// Collector for per-task operator tables: msprof `op_summary*.csv` and torch_npu
// `kernel_details*.csv` (formats.md §3) → store::OpTask, one row per task execution.
#pragma once

#include <cstddef>

#include "collectors/common/collector.h"

namespace perfsage::collectors::ascend {

struct OpTableOptions {
  int parsers = 0;                // parser threads; 0: one per core, at most two
  size_t chunk_bytes = 4u << 20;  // rows are parsed in chunks of about this size
};

class OpTableCollector : public Collector {
 public:
  explicit OpTableCollector(OpTableOptions options = {}) : options_(options) {}
  std::string name() const override { return "ascend.op_table"; }
  int detect(const FileProbe& probe) const override;
  void collect(const FileProbe& probe, CollectContext& ctx) const override;

 private:
  OpTableOptions options_;
};

}  // namespace perfsage::collectors::ascend
