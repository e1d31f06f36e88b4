// Collector for the Ascend timeline: torch_npu `trace_view.json` and msprof `msprof_*.json`
// (formats.md §6), a Chrome trace in array or object form.
//
// Processes are identified by their `process_name` metadata (which may come last), so the file
// is read in two passes. Python/framework spans → HostEvent (cpu_op, user_annotation, queue,
// python, gc); CANN API calls → HostEvent kind `api`; Ascend Hardware tasks → DeviceEvent kind
// `kernel` (args kept, `connection_id` as correlation); HCCL tasks → DeviceEvent kind
// `communication`; Overlap Analysis slices → DeviceEvent kind `overlap`; each
// `ProfilerStep#N` → store::Step with the overlap, dataloader and optimizer time inside it.
// Flow, counter and instant events are counted, not stored.
#pragma once

#include "collectors/common/collector.h"

namespace perfsage::collectors::ascend {

class TimelineCollector : public Collector {
 public:
  std::string name() const override { return "ascend.timeline"; }
  int detect(const FileProbe& probe) const override;
  void collect(const FileProbe& probe, CollectContext& ctx) const override;
};

}  // namespace perfsage::collectors::ascend
