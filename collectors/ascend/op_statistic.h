// Recognises per-op-type aggregates (`op_statistic*.csv`, formats.md §4) so they are not
// reported as unknown files. They are validated but not stored: every figure in them is an
// aggregate of the op table (op_summary / kernel_details) that analyzers recompute exactly.
#pragma once

#include "collectors/common/collector.h"

namespace perfsage::collectors::ascend {

class OpStatisticCollector : public Collector {
 public:
  std::string name() const override { return "ascend.op_statistic"; }
  int detect(const FileProbe& probe) const override;
  void collect(const FileProbe& probe, CollectContext& ctx) const override;
};

}  // namespace perfsage::collectors::ascend
