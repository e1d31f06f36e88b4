// Pack selections and analyzer resources for tests: the shipped knowledge bases by path, the
// way app/ would give them, without looking anything up from the environment.
#pragma once

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyzers/core/fact_types.h"
#include "engine/kb/selection.h"
#include "test_support.h"

namespace perfsage::test {

inline std::filesystem::path kb_dir() {
  return source_dir() / "knowledge_bases";
}

// The fact types the analyzers declare, as app/ hands them to the engine.
inline std::shared_ptr<const engine::facts::Catalog> catalog() {
  static const auto c = std::make_shared<const engine::facts::Catalog>(analyzers::fact_types());
  return c;
}

inline const engine::facts::FactType& fact_type(const char* name) {
  const auto* t = catalog()->find(name);
  if (!t) throw std::logic_error(std::string("no fact type ") + name);
  return *t;
}

// The built-in packs, trusted (in-process) like app/ loads them.
inline engine::Selection builtin_selection() {
  engine::Selection sel;
  sel.catalog = catalog();
  sel.paths.push_back({kb_dir() / "builtin", "builtin", true, false, {}});
  return sel;
}

// Packs from folders outside the built-in one (evaluated in a child process).
inline engine::Selection untrusted_selection(const std::vector<std::filesystem::path>& dirs) {
  engine::Selection sel;
  sel.catalog = catalog();
  for (const auto& d : dirs) sel.paths.push_back({d, "project", false, true, {}});
  return sel;
}

}  // namespace perfsage::test
