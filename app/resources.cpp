#include "app/resources.h"

#include <cstdlib>
#include <system_error>

namespace perfsage::app {
namespace fs = std::filesystem;

ResourceHints ResourceHints::from_environment() {
  ResourceHints h;
  if (const char* v = std::getenv("PERFSAGE_KB_PATH"); v && *v) h.kb_path_env = fs::path(v);
  std::error_code ec;
  h.executable = fs::read_symlink("/proc/self/exe", ec);
  h.compiled_kb_dir = PERFSAGE_KB_DIR;
  if (const char* v = std::getenv("HOME"); v && *v) h.home = fs::path(v);
  if (const char* v = std::getenv("XDG_DATA_HOME"); v && *v) h.data_home = fs::path(v);
  return h;
}

fs::path Resources::builtin_packs() const {
  return kb_root.empty() ? fs::path() : kb_root / "builtin";
}
fs::path Resources::community_packs() const {
  return kb_root.empty() ? fs::path() : kb_root / "community";
}
fs::path Resources::hardware_dir() const {
  return kb_root.empty() ? fs::path() : kb_root / "hardware";
}
fs::path Resources::patterns_dir() const {
  return kb_root.empty() ? fs::path() : kb_root / "patterns";
}

Resources locate_resources(const ResourceHints& hints) {
  Resources r;
  // In order: the environment, an installed tree (<prefix>/bin/perfsage beside
  // <prefix>/share/perfsage), the build tree (build/bin/perfsage in the checkout), the source
  // tree the binary was built from.
  std::vector<std::pair<fs::path, std::string>> candidates;
  if (hints.kb_path_env) candidates.emplace_back(*hints.kb_path_env, "$PERFSAGE_KB_PATH");
  if (!hints.executable.empty()) {
    fs::path bin = hints.executable.parent_path();
    candidates.emplace_back(bin.parent_path() / "share" / "perfsage" / "knowledge_bases",
                            "installed beside the executable");
    candidates.emplace_back(bin.parent_path().parent_path() / "knowledge_bases",
                            "the checkout the executable was built in");
  }
  if (!hints.compiled_kb_dir.empty())
    candidates.emplace_back(hints.compiled_kb_dir, "the source tree compiled in");
  for (const auto& [dir, how] : candidates) {
    std::error_code ec;
    if (fs::is_directory(dir / "builtin", ec)) {
      r.kb_root = fs::weakly_canonical(dir, ec);
      if (ec) r.kb_root = dir;
      r.how = how;
      break;
    }
  }
  if (hints.data_home)
    r.user_packs = *hints.data_home / "perfsage" / "packs";
  else if (hints.home)
    r.user_packs = *hints.home / ".local" / "share" / "perfsage" / "packs";
  r.system_packs = hints.system_dir;
  return r;
}

}  // namespace perfsage::app
