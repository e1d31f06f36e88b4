#include "collectors/common/collector.h"

// Each collector exposes a factory; the registry lists them in detection order.
namespace perfsage::collectors {

const std::vector<std::unique_ptr<Collector>>& all_collectors() {
  static const std::vector<std::unique_ptr<Collector>> collectors = [] {
    std::vector<std::unique_ptr<Collector>> v;
    return v;
  }();
  return collectors;
}

}  // namespace perfsage::collectors
