#include "engine/kb/selection.h"

#include <fnmatch.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "engine/error.h"
#include "engine/kb/parallel_in_order.h"
#include "engine/kb/reader.h"

namespace perfsage::engine {
namespace fs = std::filesystem;
namespace {

// Merges a later definition of the same pack into the earlier one.
void merge(Pack& base, const Pack& later, std::vector<LoadMessage>& msgs) {
  msgs.push_back({LoadCode::shadowed_pack, later.file.string(), 1, 1, base.name, "",
                  "merges into the " + base.source + " pack from " + base.file.string()});
  for (const auto& p : later.params) {
    bool found = false;
    for (auto& q : base.params)
      if (q.name == p.name) q = p, found = true;
    if (!found) base.params.push_back(p);
  }
  for (const auto& l : later.lists) {
    bool found = false;
    for (auto& q : base.lists)
      if (q.name == l.name)
        q.items.insert(q.items.end(), l.items.begin(), l.items.end()), found = true;
    if (!found) base.lists.push_back(l);
  }
  for (const auto& m : later.macros) {
    bool found = false;
    for (auto& q : base.macros)
      if (q.name == m.name) q = m, found = true;
    if (!found) base.macros.push_back(m);
  }
  for (const auto& u : later.uses)
    if (std::find(base.uses.begin(), base.uses.end(), u) == base.uses.end()) base.uses.push_back(u);
  for (const auto& r : later.rules) {
    Rule* old = base.rule(r.id);
    if (!old) {
      base.rules.push_back(r);
      continue;
    }
    if (r.override_mode.empty()) {
      msgs.push_back({LoadCode::err_validate, r.pos.file, r.pos.line, r.pos.column, base.name,
                      "rule " + r.id,
                      "rule already defined in " + old->pos.file + ":" +
                          std::to_string(old->pos.line) + "; set override: replace or append"});
      continue;
    }
    bool replace = r.override_mode == "replace";
    auto has = [&](const char* k) { return r.keys.count(k) > 0; };
    if (has("when")) {
      if (replace)
        old->when = r.when;
      else {
        // Appended conditions keep their own line mapping only if the base had none after it.
        old->when.text += "\n" + r.when.text;
        old->when.line_mapped = false;
      }
    }
    if (has("tags")) {
      if (replace)
        old->tags = r.tags;
      else
        old->tags.insert(old->tags.end(), r.tags.begin(), r.tags.end());
    }
    if (has("references")) {
      if (replace)
        old->references = r.references;
      else
        old->references.insert(old->references.end(), r.references.begin(), r.references.end());
    }
    if (has("evidence")) {
      if (replace)
        old->evidence = r.evidence;
      else
        old->evidence.insert(old->evidence.end(), r.evidence.begin(), r.evidence.end());
    }
    if (!replace) {
      for (const char* k : {"title", "severity", "category", "enabled", "message", "subjects",
                            "gain", "share", "action", "no_action"})
        if (has(k))
          msgs.push_back({LoadCode::err_validate, r.pos.file, r.pos.line, r.pos.column, base.name,
                          "rule " + r.id,
                          std::string("'") + k + "' cannot be appended; use override: replace"});
      continue;
    }
    if (has("title")) old->title = r.title;
    if (has("severity")) old->severity = r.severity;
    if (has("category")) old->category = r.category;
    if (has("enabled")) old->enabled = r.enabled;
    if (has("message")) old->message = r.message;
    if (has("subjects")) old->subjects = r.subjects, old->subjects_pos = r.subjects_pos;
    if (has("gain")) old->gain = r.gain;
    if (has("share")) old->share = r.share;
    // A rule proposes an action or says why it has none: setting one clears the other.
    if (has("action")) old->action = r.action, old->no_action.clear();
    if (has("no_action")) old->no_action = r.no_action, old->action.reset();
  }
}

bool matches(const std::string& entry, const Pack& p, const Rule& r) {
  if (entry.rfind("tag:", 0) == 0) {
    auto tag = entry.substr(4);
    return std::find(r.tags.begin(), r.tags.end(), tag) != r.tags.end();
  }
  return glob_match(entry, p.name) || glob_match(entry, p.name + "." + r.id);
}

std::vector<fs::path> pack_dirs(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (fs::exists(root / "pack.yaml", ec)) return {root};
  if (!fs::is_directory(root, ec)) return out;
  for (const auto& e : fs::directory_iterator(root, ec))
    if (e.is_directory() && fs::exists(e.path() / "pack.yaml", ec)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// A pack folder whose pack.yaml did not read (YAML syntax, a file too big): it has no name
// but its folder's, and its first error.
struct Unreadable {
  std::filesystem::path dir;
  std::string source, error;
  bool trusted = false;
};

struct ReadResult {
  std::vector<Pack> packs;
  std::vector<Unreadable> unreadable;
};

// Reads every pack in search order and applies redefinitions; selection not yet applied.
ReadResult read_all(const Selection& sel, std::vector<LoadMessage>& msgs) {
  ReadResult out;
  auto& packs = out.packs;
  // Every pack folder is read first, in parallel; what was read is then taken in search order.
  struct Folder {
    fs::path dir;
    std::optional<Pack> pack;
    std::vector<LoadMessage> said;
  };
  std::vector<std::vector<Folder>> folders(sel.paths.size());
  std::vector<Folder*> to_read;
  std::vector<bool> exists(sel.paths.size());
  for (size_t r = 0; r < sel.paths.size(); ++r) {
    std::error_code ec;
    exists[r] = fs::exists(sel.paths[r].path, ec);
    if (!exists[r]) continue;
    for (auto& dir : pack_dirs(sel.paths[r].path)) folders[r].push_back({std::move(dir), {}, {}});
    for (auto& f : folders[r]) to_read.push_back(&f);
  }
  parallel_in_order(to_read.size(), [&](size_t i) {
    to_read[i]->pack = read_pack(to_read[i]->dir, to_read[i]->said);
  });
  for (size_t r = 0; r < sel.paths.size(); ++r) {
    const auto& root = sel.paths[r];
    if (!exists[r]) {
      if (root.required)
        msgs.push_back({LoadCode::err_file_read, root.pos.file, root.pos.line, root.pos.column, "",
                        "kb.paths", "pack folder " + root.path.string() + " does not exist"});
      continue;
    }
    for (auto& folder : folders[r]) {
      const auto& dir = folder.dir;
      const size_t before = msgs.size();
      msgs.insert(msgs.end(), folder.said.begin(), folder.said.end());
      auto& p = folder.pack;
      if (!p) {
        auto first = std::find_if(msgs.begin() + static_cast<long>(before), msgs.end(),
                                  [](const LoadMessage& m) { return m.error(); });
        out.unreadable.push_back(
            {dir, root.source, first == msgs.end() ? "pack.yaml could not be read" : first->str(),
             root.trusted});
        continue;
      }
      p->source = root.source;
      p->trusted = root.trusted;
      auto it = std::find_if(packs.begin(), packs.end(),
                             [&](const Pack& q) { return q.name == p->name; });
      if (it == packs.end()) {
        packs.push_back(std::move(*p));
      } else if (p->override_mode.empty()) {
        msgs.push_back({LoadCode::err_validate, p->file.string(), 1, 1, p->name, "",
                        "pack '" + p->name + "' is already defined by the " + it->source +
                            " pack at " + it->file.string() +
                            "; it was not loaded (set `override: merge` or `override: replace` "
                            "to change that pack on purpose)"});
      } else if (p->override_mode == "replace") {
        msgs.push_back({LoadCode::shadowed_pack, p->file.string(), 1, 1, p->name, "",
                        "replaces the " + it->source + " pack from " + it->file.string()});
        *it = std::move(*p);
      } else {
        std::string source = p->source;
        merge(*it, *p, msgs);
        if (it->source != source) it->source += "+" + source;
        it->trusted = it->trusted && p->trusted;
      }
    }
  }
  return out;
}

}  // namespace

bool glob_match(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

int maturity_rank(const std::string& m) {
  if (m == "deprecated") return 0;
  if (m == "sandbox") return 1;
  if (m == "incubating") return 2;
  if (m == "stable") return 3;
  return -1;
}

namespace {
const facts::Catalog& catalog_of(const Selection& sel) {
  if (!sel.catalog) throw EngineError("internal: a pack selection without a fact catalog");
  return *sel.catalog;
}
// Compiles the packs in parallel; their messages come out in the packs' order.
std::vector<CompiledPack> compile_packs(const std::vector<const Pack*>& packs, const Selection& sel,
                                        std::vector<LoadMessage>& messages) {
  std::vector<CompiledPack> out(packs.size());
  std::vector<std::vector<LoadMessage>> said(packs.size());
  parallel_in_order(packs.size(), [&](size_t i) {
    static const std::map<std::string, ParamOverride> none;
    auto it = sel.params.find(packs[i]->name);
    out[i] = compile_pack(*packs[i], said[i], catalog_of(sel),
                          it == sel.params.end() ? none : it->second);
  });
  for (auto& m : said) messages.insert(messages.end(), m.begin(), m.end());
  return out;
}

}  // namespace

LoadedPacks load_pack_set(const Selection& sel) {
  LoadedPacks out;
  catalog_of(sel);
  out.set.catalog = sel.catalog;
  const auto start = std::chrono::steady_clock::now();
  auto read = read_all(sel, out.messages);
  spdlog::debug(
      "knowledge: {} pack folder(s) read in {:.1f} ms", read.packs.size(),
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  auto& packs = read.packs;
  for (const auto& want : sel.only) {
    if (std::any_of(packs.begin(), packs.end(),
                    [&](const Pack& p) { return glob_match(want, p.name); }))
      continue;
    bool broken = std::any_of(read.unreadable.begin(), read.unreadable.end(), [&](const auto& u) {
      return glob_match(want, u.dir.filename().string());
    });
    out.messages.push_back({LoadCode::err_validate, "", 0, 0, want, "kb.packs",
                            broken ? "pack '" + want + "' could not be read (see the errors above)"
                                   : "no pack matches '" + want + "' in the search paths"});
  }
  for (const auto& [name, overrides] : sel.params) {
    // A plain reference: clang before 16 cannot capture a structured binding.
    const std::string& wanted = name;
    if (std::none_of(packs.begin(), packs.end(), [&](const Pack& p) { return p.name == wanted; })) {
      const auto& pos = overrides.empty() ? sel.params_pos : overrides.begin()->second.pos;
      out.messages.push_back(
          {LoadCode::err_validate, pos.file, pos.line, pos.column, name, "kb.params",
           "params given for pack '" + name + "', which is not in the search paths"});
    }
  }
  const int floor = sel.min_maturity.empty() ? 0 : maturity_rank(sel.min_maturity);
  std::vector<const Pack*> selected;
  for (auto& p : packs) {
    if (!sel.only.empty() && std::none_of(sel.only.begin(), sel.only.end(),
                                          [&](const auto& w) { return glob_match(w, p.name); }))
      continue;
    if (maturity_rank(p.maturity) < floor) continue;  // below the configured maturity floor
    for (auto& r : p.rules) {
      for (const auto& e : sel.enable)
        if (matches(e, p, r)) r.enabled = true;
      for (const auto& d : sel.disable)
        if (matches(d, p, r)) r.enabled = false;
    }
    if (!p.rules.empty() &&
        std::none_of(p.rules.begin(), p.rules.end(), [](const Rule& r) { return r.enabled; }))
      continue;  // everything disabled: the pack does not run
    selected.push_back(&p);
  }
  for (auto& compiled : compile_packs(selected, sel, out.messages))
    out.set.packs.push_back(std::move(compiled));
  // A selected pack that did not even read is in the set as an invalid pack named by its
  // folder, like one that did not compile: its evaluation is an error a gate sees, never a
  // pack that silently is not there.
  for (const auto& u : read.unreadable) {
    const std::string name = u.dir.filename().string();
    if (!sel.only.empty() && std::none_of(sel.only.begin(), sel.only.end(),
                                          [&](const auto& w) { return glob_match(w, name); }))
      continue;
    CompiledPack broken;
    broken.pack.name = name;
    broken.pack.dir = u.dir;
    broken.pack.file = u.dir / "pack.yaml";
    broken.pack.source = u.source;
    broken.pack.trusted = u.trusted;
    broken.error = u.error;
    out.set.packs.push_back(std::move(broken));
  }
  return out;
}

std::vector<PackInfo> list_packs(const Selection& sel, std::vector<LoadMessage>& msgs) {
  std::vector<PackInfo> out;
  for (const auto& p : read_all(sel, msgs).packs) {
    PackInfo info;
    info.name = p.name;
    info.version = p.version;
    info.maturity = p.maturity;
    info.description = p.description;
    info.source = p.source;
    info.applies_to = p.applies_to;
    info.uses = p.uses;
    info.dir = p.dir;
    info.rules = p.rules.size();
    info.tests = p.test_files.size();
    for (const auto& r : p.rules) info.enabled_rules += r.enabled;
    std::vector<LoadMessage> cm;
    auto compiled = compile_pack(p, cm, catalog_of(sel));
    info.valid = compiled.valid;
    info.error = compiled.error;
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace perfsage::engine
