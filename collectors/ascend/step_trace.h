// Collectors for per-step breakdown tables (formats.md §4, §8.4, §8.5):
//  - torch_npu `step_trace_time.csv` (one rank) → store::Step, source `step_trace_time`;
//  - msprof-analyze `cluster_step_trace_time.csv` → store::Step per rank row (source
//    `cluster_step_trace_time`) and store::RankInfo; `stage` and other aggregate rows are not
//    ranks and are left out;
//  - msprof `step_trace_<ts>.csv` (graph-mode iterations) → store::Step, source `step_trace`.
#pragma once

#include "collectors/common/collector.h"

namespace perfsage::collectors::ascend {

class StepTraceCollector : public Collector {
 public:
  std::string name() const override { return "ascend.step_trace"; }
  int detect(const FileProbe& probe) const override;
  void collect(const FileProbe& probe, CollectContext& ctx) const override;
};

}  // namespace perfsage::collectors::ascend
