// Which packs run: ordered search paths (each with its source and trust), --kb selection by
// name or glob, enable/disable by glob or tag, a maturity floor, param overrides, and the
// rules for a pack defined again in a later path.
//
//   Selection sel;                                        // filled by app/ from config + CLI
//   sel.paths = {{builtin_dir, "builtin", true}, {user_dir, "user"}};
//   sel.only = {"gpu_*"};
//   auto [set, messages] = load_pack_set(sel);
//   for (auto& info : list_packs(sel)) ...                // perfsage kb list
//
// A pack name defined again in a later path is refused unless the later pack says
// `override: merge` (its rules merge per rule with `override: replace|append`) or
// `override: replace` (it replaces the earlier pack whole); either way the load messages say
// which pack overrode which, so a community pack never replaces a built-in silently.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/kb/compiler.h"
#include "engine/kb/load_result.h"

namespace perfsage::engine {

struct PackPath {
  std::filesystem::path path;  // a folder of pack folders, or one pack folder
  std::string source;          // builtin | community | system | user | project
  bool trusted = false;        // built-in packs may run in-process
  bool required = false;       // configured explicitly: missing is an error
  SourcePos pos;               // where it was configured, for messages
};

struct Selection {
  std::vector<PackPath> paths;    // in search order
  std::vector<std::string> only;  // pack names or globs (--kb / kb.packs); empty = all
  // Applied last, enable before disable. Entries: a glob over pack names or "pack.rule"
  // ids, or "tag:<tag>" matching rule tags.
  std::vector<std::string> enable, disable;
  std::map<std::string, std::map<std::string, ParamOverride>> params;  // pack -> param -> value
  SourcePos params_pos;
  std::string min_maturity;  // "" (all) | sandbox | incubating | stable
  // The fact types packs may use (from the analyzers, given by the application). Required.
  std::shared_ptr<const facts::Catalog> catalog;
};

struct PackSet {
  std::vector<CompiledPack> packs;  // valid and invalid (invalid ones report status error)
  std::shared_ptr<const facts::Catalog> catalog;  // the one they were compiled against
};

struct LoadedPacks {
  PackSet set;
  std::vector<LoadMessage> messages;
};

LoadedPacks load_pack_set(const Selection& sel);

struct PackInfo {
  std::string name, version, maturity, description, source;
  std::vector<std::string> applies_to, uses;
  std::filesystem::path dir;
  size_t rules = 0, enabled_rules = 0, tests = 0;
  bool valid = false;
  std::string error;  // why it is invalid
};
// Every pack in the search paths (selection by name and maturity not applied), with why an
// invalid one is invalid. Messages about reading them are appended to `messages`.
std::vector<PackInfo> list_packs(const Selection& sel, std::vector<LoadMessage>& messages);

// Shell-style glob (fnmatch: *, ?, [...]).
bool glob_match(const std::string& pattern, const std::string& text);

// Maturity rank for the floor: deprecated 0 < sandbox 1 < incubating 2 < stable 3; -1 unknown.
int maturity_rank(const std::string& maturity);

}  // namespace perfsage::engine
