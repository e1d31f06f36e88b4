#include "engine/kb/selection.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>

#include "engine/kb/reader.h"

namespace perfsage::engine {
namespace fs = std::filesystem;
namespace {

// Merges a later definition of the same pack into the earlier one.
void merge(Pack& base, const Pack& later, std::vector<LoadMessage>& msgs) {
  msgs.push_back({LoadCode::shadowed_pack, later.file.string(), 1, 1, base.name, "",
                  "redefines pack from " + base.file.string()});
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
                            "gain", "share", "action"})
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
    if (has("action")) old->action = r.action;
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

// Reads every pack in search order and merges redefinitions; selection not yet applied.
std::vector<Pack> read_all(const Selection& sel, std::vector<LoadMessage>& msgs) {
  std::vector<Pack> packs;
  for (const auto& root : search_paths(sel)) {
    for (const auto& dir : pack_dirs(root)) {
      auto p = read_pack(dir, msgs);
      if (!p) continue;
      auto it = std::find_if(packs.begin(), packs.end(),
                             [&](const Pack& q) { return q.name == p->name; });
      if (it == packs.end())
        packs.push_back(std::move(*p));
      else
        merge(*it, *p, msgs);
    }
  }
  return packs;
}

}  // namespace

bool glob_match(const std::string& pattern, const std::string& text) {
  size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++, mark = t;
    } else if (star != std::string::npos) {
      p = star + 1, t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

fs::path kb_root() {
  std::error_code ec;
  if (const char* env = std::getenv("PERFSAGE_KB_PATH"); env && *env) return env;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path candidate = exe.parent_path() / ".." / ".." / "knowledge_bases";
    if (fs::is_directory(candidate / "builtin", ec)) return fs::weakly_canonical(candidate, ec);
  }
  fs::path compiled = PERFSAGE_KB_DIR;
  if (fs::is_directory(compiled, ec)) return compiled;
  return {};
}

std::vector<fs::path> search_paths(const Selection& sel) {
  std::vector<fs::path> out;
  if (sel.builtin) {
    auto root = kb_root();
    if (!root.empty()) {
      out.push_back(root / "builtin");
      out.push_back(root / "community");
    }
  }
  out.insert(out.end(), sel.paths.begin(), sel.paths.end());
  return out;
}

Selection read_config(const fs::path& file, std::vector<LoadMessage>& msgs) {
  Selection sel;
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::BadFile&) {
    msgs.push_back(
        {LoadCode::err_file_read, file.string(), 0, 0, "", "", "cannot read config file"});
    return sel;
  } catch (const YAML::Exception& e) {
    msgs.push_back({LoadCode::err_yaml_parse, file.string(), e.mark.line + 1, e.mark.column + 1, "",
                    "", e.msg});
    return sel;
  }
  auto kb = root["kb"];
  if (!kb) return sel;
  auto bad = [&](const YAML::Node& n, const std::string& text) {
    msgs.push_back({LoadCode::err_yaml_validate, file.string(), n.Mark().line + 1,
                    n.Mark().column + 1, "", "kb", text});
  };
  auto strings = [&](const YAML::Node& n, std::vector<std::string>& out, const char* what) {
    if (!n) return;
    if (!n.IsSequence()) return bad(n, std::string(what) + " must be a list");
    for (const auto& e : n) out.push_back(e.as<std::string>());
  };
  std::vector<std::string> paths;
  strings(kb["paths"], paths, "kb.paths");
  for (const auto& p : paths) {
    fs::path path = p;
    sel.paths.push_back(path.is_relative() ? file.parent_path() / path : path);
  }
  strings(kb["enable"], sel.enable, "kb.enable");
  strings(kb["disable"], sel.disable, "kb.disable");
  strings(kb["packs"], sel.only, "kb.packs");
  if (kb["builtin"]) sel.builtin = kb["builtin"].as<bool>(true);
  if (auto params = kb["params"]) {
    if (!params.IsMap())
      bad(params, "kb.params must be a map pack -> {param: value}");
    else
      for (const auto& pk : params) {
        if (!pk.second.IsMap()) {
          bad(pk.second, "kb.params." + pk.first.as<std::string>() + " must be a map");
          continue;
        }
        for (const auto& kv : pk.second)
          sel.params[pk.first.as<std::string>()][kv.first.as<std::string>()] =
              kv.second.as<std::string>();
      }
  }
  for (const auto& kv : kb) {
    auto k = kv.first.as<std::string>();
    if (k != "paths" && k != "enable" && k != "disable" && k != "params" && k != "packs" &&
        k != "builtin")
      msgs.push_back({LoadCode::unknown_key, file.string(), kv.first.Mark().line + 1,
                      kv.first.Mark().column + 1, "", "kb", "unknown key '" + k + "' ignored"});
  }
  return sel;
}

LoadedPacks load_pack_set(const Selection& sel) {
  LoadedPacks out;
  auto packs = read_all(sel, out.messages);
  for (const auto& name : sel.only)
    if (std::none_of(packs.begin(), packs.end(), [&](const Pack& p) { return p.name == name; }))
      out.messages.push_back({LoadCode::err_validate, "", 0, 0, name, "",
                              "no pack named '" + name + "' in the search paths"});
  for (auto& p : packs) {
    if (!sel.only.empty() && std::find(sel.only.begin(), sel.only.end(), p.name) == sel.only.end())
      continue;
    for (auto& r : p.rules) {
      for (const auto& e : sel.enable)
        if (matches(e, p, r)) r.enabled = true;
      for (const auto& d : sel.disable)
        if (matches(d, p, r)) r.enabled = false;
    }
    if (!p.rules.empty() &&
        std::none_of(p.rules.begin(), p.rules.end(), [](const Rule& r) { return r.enabled; }))
      continue;  // everything disabled: the pack does not run
    auto it = sel.params.find(p.name);
    static const std::map<std::string, std::string> none;
    out.set.packs.push_back(
        compile_pack(p, out.messages, it == sel.params.end() ? none : it->second));
  }
  return out;
}

std::vector<PackInfo> list_packs(const Selection& sel) {
  std::vector<LoadMessage> msgs;
  std::vector<PackInfo> out;
  for (const auto& p : read_all(sel, msgs)) {
    PackInfo info{p.name, p.version,      p.maturity, p.description,       p.applies_to, p.uses,
                  p.dir,  p.rules.size(), 0,          p.test_files.size(), false};
    for (const auto& r : p.rules) info.enabled_rules += r.enabled;
    std::vector<LoadMessage> cm;
    info.valid = compile_pack(p, cm).valid;
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace perfsage::engine
