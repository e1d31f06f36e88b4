// The collector of `fusion_result.json` (GE/FE fusion pass statistics, formats.md §10) ->
// store::FusionStat.
#pragma once

#include "collectors/common/collector.h"

namespace perfsage::collectors::ascend {

class FusionResultCollector : public Collector {
 public:
  std::string name() const override { return "ascend.fusion_result"; }
  int detect(const FileProbe& probe) const override;
  void collect(const FileProbe& probe, CollectContext& ctx) const override;
};

}  // namespace perfsage::collectors::ascend
