#include "collectors/common/collector.h"
#include "collectors/graph/ge_dump_collector.h"
#include "collectors/graph/onnx_collector.h"

namespace perfsage::collectors {

void add_graph_collectors(std::vector<std::unique_ptr<Collector>>& out) {
  out.push_back(std::make_unique<graph::GeDumpCollector>());
  out.push_back(std::make_unique<graph::OnnxCollector>());
}

}  // namespace perfsage::collectors
