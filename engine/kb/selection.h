// Which packs run: search paths, --kb selection, enable/disable, param overrides, and the
// merge of a pack redefined in a later path (per rule `override: replace|append`).
//
//   Selection sel = read_config("perfsage.yaml", msgs);   // kb: {paths, enable, disable, params}
//   sel.only = {"aicpu"};                                  // perfsage analyze --kb aicpu
//   auto [set, messages] = load_pack_set(sel);
//   for (auto& info : list_packs(sel)) ...                 // perfsage kb list
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/kb/compiler.h"
#include "engine/kb/load_result.h"

namespace perfsage::engine {

struct Selection {
  bool builtin = true;                       // <kb root>/builtin, then <kb root>/community
  std::vector<std::filesystem::path> paths;  // user/project paths, searched after those
  std::vector<std::string> only;             // pack names (--kb); empty = all
  // Applied last, enable before disable. Entries: a glob over pack names or "pack.rule"
  // ids, or "tag:<tag>" matching rule tags.
  std::vector<std::string> enable, disable;
  std::map<std::string, std::map<std::string, std::string>> params;  // pack -> param -> value
};

// Reads the `kb:` section of a YAML config file into a selection (other sections ignored).
Selection read_config(const std::filesystem::path& file, std::vector<LoadMessage>& messages);

// The knowledge_bases root: $PERFSAGE_KB_PATH, else ../../knowledge_bases next to the
// executable, else the source tree's (compile-time) path. Empty when none exists.
std::filesystem::path kb_root();
std::vector<std::filesystem::path> search_paths(const Selection& sel);

struct PackSet {
  std::vector<CompiledPack> packs;  // valid and invalid (invalid ones report status error)
};

struct LoadedPacks {
  PackSet set;
  std::vector<LoadMessage> messages;
};

LoadedPacks load_pack_set(const Selection& sel);

struct PackInfo {
  std::string name, version, maturity, description;
  std::vector<std::string> applies_to, uses;
  std::filesystem::path dir;
  size_t rules = 0, enabled_rules = 0, tests = 0;
  bool valid = false;
};
std::vector<PackInfo> list_packs(const Selection& sel);

// Glob with * and ? (no character classes).
bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace perfsage::engine
