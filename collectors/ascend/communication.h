// The collector of `communication.json` (per-step collective statistics, formats.md §8.1) ->
// store::CommOp.
#pragma once

#include "collectors/common/collector.h"

namespace perfsage::collectors::ascend {

class CommunicationCollector : public Collector {
 public:
  std::string name() const override { return "ascend.communication"; }
  int detect(const FileProbe& probe) const override;
  void collect(const FileProbe& probe, CollectContext& ctx) const override;
};

}  // namespace perfsage::collectors::ascend
