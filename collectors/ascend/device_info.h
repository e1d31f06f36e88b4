// The collector of `info.json.<N>` (an Ascend device description, formats.md §7) -> store::Hardware.
#pragma once

#include "collectors/common/collector.h"

namespace perfsage::collectors::ascend {

class DeviceInfoCollector : public Collector {
 public:
  std::string name() const override { return "ascend.device_info"; }
  int detect(const FileProbe& probe) const override;
  void collect(const FileProbe& probe, CollectContext& ctx) const override;
};

}  // namespace perfsage::collectors::ascend
