#include "collectors/common/collector.h"

namespace perfsage::collectors {

void add_kineto_collectors(std::vector<std::unique_ptr<Collector>>& out) { (void)out; }

}  // namespace perfsage::collectors
