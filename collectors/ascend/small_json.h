// Collectors for the small Ascend JSON files:
//  - `info.json.<N>` (device description, formats.md §7) → store::Hardware;
//  - `communication.json` (per-step collective statistics, §8.1) → store::CommOp;
//  - `fusion_result.json` (GE/FE fusion pass statistics, §10) → store::FusionStat.
#pragma once

#include "collectors/common/collector.h"

namespace perfsage::collectors::ascend {

class DeviceInfoCollector : public Collector {
 public:
  std::string name() const override { return "ascend.device_info"; }
  int detect(const FileProbe& probe) const override;
  void collect(const FileProbe& probe, CollectContext& ctx) const override;
};

class CommunicationCollector : public Collector {
 public:
  std::string name() const override { return "ascend.communication"; }
  int detect(const FileProbe& probe) const override;
  void collect(const FileProbe& probe, CollectContext& ctx) const override;
};

class FusionResultCollector : public Collector {
 public:
  std::string name() const override { return "ascend.fusion_result"; }
  int detect(const FileProbe& probe) const override;
  void collect(const FileProbe& probe, CollectContext& ctx) const override;
};

}  // namespace perfsage::collectors::ascend
