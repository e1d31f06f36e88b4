#include "collectors/ascend/communication.h"
#include "collectors/ascend/device_info.h"
#include "collectors/ascend/fusion_result.h"
#include "collectors/ascend/op_statistic.h"
#include "collectors/ascend/op_table.h"
#include "collectors/ascend/step_trace.h"
#include "collectors/ascend/timeline.h"
#include "collectors/common/collector.h"

namespace perfsage::collectors {

void add_ascend_collectors(std::vector<std::unique_ptr<Collector>>& out) {
  out.push_back(std::make_unique<ascend::OpTableCollector>());
  out.push_back(std::make_unique<ascend::OpStatisticCollector>());
  out.push_back(std::make_unique<ascend::StepTraceCollector>());
  out.push_back(std::make_unique<ascend::TimelineCollector>());
  out.push_back(std::make_unique<ascend::DeviceInfoCollector>());
  out.push_back(std::make_unique<ascend::CommunicationCollector>());
  out.push_back(std::make_unique<ascend::FusionResultCollector>());
}

}  // namespace perfsage::collectors
