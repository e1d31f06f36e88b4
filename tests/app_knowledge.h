// The shipped knowledge (built-in packs, hardware specs, fusion patterns) as app/ loads it for a
// run, from the source tree: loaded once per test program.
#pragma once

#include <catch2/catch.hpp>
#include <memory>

#include "app/knowledge.h"
#include "app/resources.h"
#include "test_support.h"

namespace perfsage::test {

inline std::shared_ptr<const app::Knowledge> shipped_knowledge() {
  static const auto kn = [] {
    app::ResourceHints hints;
    hints.compiled_kb_dir = source_dir() / "knowledge_bases";
    auto k = app::load_knowledge({}, app::locate_resources(hints));
    REQUIRE(k);
    return *k;
  }();
  return kn;
}

}  // namespace perfsage::test
