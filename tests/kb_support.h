// Pack selections and analyzer resources for tests: the shipped knowledge bases by path, the
// way app/ would give them, without looking anything up from the environment.
#pragma once

#include <filesystem>
#include <vector>

#include "engine/kb/selection.h"
#include "test_support.h"

namespace perfsage::test {

inline std::filesystem::path kb_dir() {
  return source_dir() / "knowledge_bases";
}

// The built-in packs, trusted (in-process) like app/ loads them.
inline engine::Selection builtin_selection() {
  engine::Selection sel;
  sel.paths.push_back({kb_dir() / "builtin", "builtin", true, false, {}});
  return sel;
}

// Packs from folders outside the built-in one (evaluated in a child process).
inline engine::Selection untrusted_selection(const std::vector<std::filesystem::path>& dirs) {
  engine::Selection sel;
  for (const auto& d : dirs) sel.paths.push_back({d, "project", false, true, {}});
  return sel;
}

}  // namespace perfsage::test
