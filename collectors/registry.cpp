#include "collectors/common/collector.h"

namespace perfsage::collectors {

// Defined by each collector family in collectors/<family>/register.cpp.
void add_ascend_collectors(std::vector<std::unique_ptr<Collector>>& out);
void add_kineto_collectors(std::vector<std::unique_ptr<Collector>>& out);
void add_graph_collectors(std::vector<std::unique_ptr<Collector>>& out);

const std::vector<std::unique_ptr<Collector>>& all_collectors() {
  static const std::vector<std::unique_ptr<Collector>> collectors = [] {
    std::vector<std::unique_ptr<Collector>> v;
    add_ascend_collectors(v);
    add_kineto_collectors(v);
    add_graph_collectors(v);
    return v;
  }();
  return collectors;
}

}  // namespace perfsage::collectors
