// The configuration shared by the CLI and the daemon: pack selection (`kb:`) and limits
// (`limits:`). The daemon reads its own `daemon:` section on top of this; other top-level keys
// are warned about, never silently dropped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "app/result.h"
#include "engine/clips/budget.h"
#include "engine/kb/load_result.h"
#include "engine/kb/selection.h"

namespace perfsage::app {

struct Limits {
  engine::Budget pack_budget;  // per pack: wall time, CLIPS memory, rule firings
  // Packs outside the built-in folder run in a child process under RLIMIT_AS / RLIMIT_CPU;
  // `isolate_all` puts the built-in ones there too.
  bool isolate_untrusted = true;
  bool isolate_all = false;
  uint64_t max_input_bytes = 0;  // 0 = no limit
};

struct AppConfig {
  std::filesystem::path file;  // empty when no config file was given
  // Pack selection: `only`, enable/disable, params and the maturity floor. Its search paths are
  // composed by load_knowledge from the resources and `kb_paths`.
  engine::Selection selection;
  std::vector<engine::PackPath> kb_paths;  // kb.paths (source "project"), relative to the file
  bool builtin = true;                     // kb.builtin: false leaves out built-in and community
  Limits limits;
};

struct ConfigLoad {
  AppConfig config;
  std::vector<engine::LoadMessage> messages;  // warnings (errors make the Result an Error)
};

// Reads a YAML config file; errors name file:line:column. `known_sections` are top-level keys
// a caller (the daemon) reads itself and that must not be warned about.
Result<ConfigLoad> read_config_file(const std::filesystem::path& file,
                                    const std::vector<std::string>& known_sections = {});

}  // namespace perfsage::app
