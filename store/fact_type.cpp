#include "store/fact_type.h"

namespace perfsage::store {

const Slot* FactType::slot(std::string_view n) const {
  for (const auto& s : slots)
    if (s.name == n) return &s;
  return nullptr;
}

std::string median_of(const std::string& v) {
  return "(SELECT avg(" + v + ") FROM (SELECT " + v + " FROM x ORDER BY " + v +
         " LIMIT 2 - (SELECT count(*) FROM x) % 2 OFFSET ((SELECT count(*) FROM x) - 1) / 2))";
}

}  // namespace perfsage::store
