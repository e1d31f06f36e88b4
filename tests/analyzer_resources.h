// The shipped hardware specs and fusion patterns for tests that run analyzers, loaded from the
// source tree by path (what app/ gives the analyzers in a real run).
#pragma once

#include "analyzers/patterns/pattern_spec.h"
#include "analyzers/roofline/hardware_db.h"
#include "test_support.h"

namespace perfsage::test {

inline const analyzers::roofline::HardwareDb& shipped_hardware() {
  static const auto db =
      analyzers::roofline::HardwareDb::load(source_dir() / "knowledge_bases" / "hardware");
  return db;
}

inline const std::vector<analyzers::patterns::Pattern>& shipped_patterns() {
  static const auto p =
      analyzers::patterns::load_patterns(source_dir() / "knowledge_bases" / "patterns");
  return p;
}

}  // namespace perfsage::test
