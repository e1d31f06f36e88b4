#include "app/knowledge.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "analyzers/core/analyzer.h"
#include "analyzers/core/fact_types.h"
#include "engine/kb/reader.h"
#include "store/database.h"
#include "store/derived_tables.h"

namespace perfsage::app {
namespace fs = std::filesystem;
namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return !p.empty() && fs::is_directory(p, ec);
}

// A --kb entry naming a pack folder: its pack name, read from pack.yaml.
std::optional<std::string> pack_name_in(const fs::path& dir, std::vector<engine::LoadMessage>& m) {
  std::error_code ec;
  if (!fs::exists(dir / "pack.yaml", ec)) return std::nullopt;
  auto pack = engine::read_pack(dir, m);
  return pack ? std::optional<std::string>(pack->name) : std::optional<std::string>(dir.filename());
}

// A pack folder already read as part of a search path (e.g. a built-in pack named by path).
bool inside_search_paths(const fs::path& dir, const std::vector<engine::PackPath>& paths) {
  std::error_code ec;
  fs::path d = fs::weakly_canonical(dir, ec);
  for (const auto& p : paths) {
    fs::path root = fs::weakly_canonical(p.path, ec);
    if (d == root || d.parent_path() == root) return true;
  }
  return false;
}

// Errors that make the request itself wrong (selection, config), as opposed to one broken pack.
bool is_request_error(const engine::LoadMessage& m, const AppConfig& cfg) {
  if (!m.error()) return false;
  if (m.item.rfind("kb.", 0) == 0) return true;
  return !cfg.file.empty() && m.file == cfg.file.string();
}

}  // namespace

std::shared_ptr<const engine::facts::Catalog> fact_catalog() {
  static const auto catalog =
      std::make_shared<const engine::facts::Catalog>(analyzers::fact_types());
  return catalog;
}

std::vector<std::string> fact_type_mismatches() {
  store::Database db(":memory:");
  store::ensure_derived_tables(db, analyzers::derived_tables());
  std::vector<std::string> out;
  for (const auto& t : fact_catalog()->types()) {
    std::string why = store::slot_mismatch(db, t);
    if (!why.empty()) out.push_back(std::move(why));
  }
  return out;
}

std::string facts_reference() {
  return engine::facts::facts_markdown(*fact_catalog()) +
         store::tables_markdown(analyzers::derived_tables());
}

engine::Selection compose_selection(const AppConfig& config, const Resources& resources,
                                    const KnowledgeRequest& request,
                                    std::vector<engine::LoadMessage>& messages) {
  engine::Selection sel = config.selection;
  sel.catalog = fact_catalog();
  sel.paths.clear();
  if (config.builtin) {
    if (is_dir(resources.builtin_packs()))
      sel.paths.push_back({resources.builtin_packs(), "builtin", true, false, {}});
    if (is_dir(resources.community_packs()))
      sel.paths.push_back({resources.community_packs(), "community", false, false, {}});
  }
  if (is_dir(resources.system_packs))
    sel.paths.push_back({resources.system_packs, "system", false, false, {}});
  if (is_dir(resources.user_packs))
    sel.paths.push_back({resources.user_packs, "user", false, false, {}});
  for (const auto& p : config.kb_paths) sel.paths.push_back(p);
  // --kb may name a pack folder: it is searched last and selected by its pack name.
  if (!request.only.empty()) {
    sel.only.clear();
    for (const auto& entry : request.only) {
      if (auto name = pack_name_in(entry, messages)) {
        if (!inside_search_paths(entry, sel.paths))
          sel.paths.push_back({fs::absolute(entry), "project", false, true, {}});
        sel.only.push_back(*name);
      } else {
        sel.only.push_back(entry);
      }
    }
  }
  return sel;
}

Result<std::shared_ptr<Knowledge>> load_packs(const AppConfig& config, const Resources& resources,
                                              const KnowledgeRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  auto kn = std::make_shared<Knowledge>();
  engine::Selection sel = compose_selection(config, resources, request, kn->messages);
  for (const auto& p : sel.paths) kn->pack_paths.push_back(p.path);

  auto loaded = engine::load_pack_set(sel);
  kn->packs = std::move(loaded.set);
  spdlog::debug("knowledge: {} pack(s) read, checked and compiled in {:.1f} ms",
                kn->packs.packs.size(), ms_since(start));
  kn->messages.insert(kn->messages.end(), loaded.messages.begin(), loaded.messages.end());
  // A request error (selection, config) fails the whole load; its message then carries every
  // error said while loading, since a pack that did not read is often the reason.
  if (std::any_of(kn->messages.begin(), kn->messages.end(),
                  [&](const auto& m) { return is_request_error(m, config); })) {
    std::string why;
    for (const auto& m : kn->messages) {
      if (!m.error()) continue;
      if (!why.empty()) why += '\n';
      why += m.str();
    }
    return Error{ErrorKind::usage, why};
  }
  return kn;
}

std::optional<Error> load_analyzer_knowledge(const AppConfig& config, const Resources& resources,
                                             Knowledge& kn) {
  const auto start = std::chrono::steady_clock::now();
  // Hardware specs and fusion patterns: the built-in ones, then those of each configured
  // kb path that has hardware/ or patterns/ beside its packs.
  std::vector<fs::path> hw_dirs, pattern_dirs;
  if (is_dir(resources.hardware_dir())) hw_dirs.push_back(resources.hardware_dir());
  if (is_dir(resources.patterns_dir())) pattern_dirs.push_back(resources.patterns_dir());
  for (const auto& p : config.kb_paths) {
    if (is_dir(p.path / "hardware")) hw_dirs.push_back(p.path / "hardware");
    if (is_dir(p.path / "patterns")) pattern_dirs.push_back(p.path / "patterns");
  }
  try {
    kn.hardware = analyzers::roofline::HardwareDb::load(hw_dirs);
    for (const auto& dir : pattern_dirs) {
      auto ps = analyzers::patterns::load_patterns(dir);
      kn.patterns.insert(kn.patterns.end(), ps.begin(), ps.end());
    }
  } catch (const std::exception& e) {
    return Error{ErrorKind::usage, e.what()};
  }
  spdlog::debug("knowledge: hardware specs and fusion patterns loaded in {:.1f} ms",
                ms_since(start));
  return std::nullopt;
}

Result<std::shared_ptr<const Knowledge>> load_knowledge(const AppConfig& config,
                                                        const Resources& resources,
                                                        const KnowledgeRequest& request) {
  auto kn = load_packs(config, resources, request);
  if (!kn) return kn.error();
  if (auto failed = load_analyzer_knowledge(config, resources, **kn)) return *failed;
  return std::shared_ptr<const Knowledge>(std::move(*kn));
}

}  // namespace perfsage::app
