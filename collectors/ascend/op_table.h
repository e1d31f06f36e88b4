// Collector for per-task operator tables: msprof `op_summary*.csv` and torch_npu
// `kernel_details*.csv` (formats.md §3) → store::OpTask, one row per task execution.
#pragma once

#include "collectors/common/collector.h"

namespace perfsage::collectors::ascend {

class OpTableCollector : public Collector {
 public:
  // `threaded`: insert rows on a second thread while the next ones are parsed.
  explicit OpTableCollector(bool threaded = true) : threaded_(threaded) {}
  std::string name() const override { return "ascend.op_table"; }
  int detect(const FileProbe& probe) const override;
  void collect(const FileProbe& probe, CollectContext& ctx) const override;

 private:
  bool threaded_;
};

}  // namespace perfsage::collectors::ascend
