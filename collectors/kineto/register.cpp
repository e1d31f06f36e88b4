#include <memory>
#include <vector>

#include "collectors/common/collector.h"
#include "collectors/kineto/kineto_collector.h"

namespace perfsage::collectors {

void add_kineto_collectors(std::vector<std::unique_ptr<Collector>>& out) {
  out.push_back(std::make_unique<kineto::KinetoCollector>());
}

}  // namespace perfsage::collectors
