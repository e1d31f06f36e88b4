// Where perfsage finds its data: built-in and community packs, system/user/project pack
// folders, hardware specs and fusion patterns. One place decides, from the environment, the
// executable's location (installed or in the build tree), the compiled-in source tree and the
// config's kb.paths; everything else asks a Resources value and never looks on its own.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace perfsage::app {

// What the locator looks at; from_environment() fills it from the process, tests fill it by hand.
struct ResourceHints {
  std::optional<std::filesystem::path> kb_path_env;  // $PERFSAGE_KB_PATH
  std::filesystem::path executable;                  // /proc/self/exe
  std::filesystem::path compiled_kb_dir;             // the source tree's knowledge_bases/
  std::optional<std::filesystem::path> home;         // $HOME, for the user pack folder
  std::optional<std::filesystem::path> data_home;    // $XDG_DATA_HOME
  std::filesystem::path system_dir = "/etc/perfsage/packs";
  static ResourceHints from_environment();
};

struct Resources {
  // knowledge_bases root holding builtin/, community/, hardware/, patterns/ (may be empty when
  // nothing was found: perfsage then runs with no built-in packs and says so).
  std::filesystem::path kb_root;
  std::filesystem::path user_packs;  // where `kb install` puts packs ($XDG_DATA_HOME/perfsage/packs)
  std::filesystem::path system_packs;
  std::string how;  // which hint found kb_root, for `kb paths` and errors

  std::filesystem::path builtin_packs() const;
  std::filesystem::path community_packs() const;
  std::filesystem::path hardware_dir() const;
  std::filesystem::path patterns_dir() const;
};

Resources locate_resources(const ResourceHints& hints);

}  // namespace perfsage::app
