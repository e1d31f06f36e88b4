#include "app/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

#include "app/config_units.h"

namespace perfsage::app {
namespace fs = std::filesystem;
namespace {

// Thrown for one bad value; the reader reports it with the value's position.
struct Bad {
  YAML::Mark mark;
  std::string text;
};

class ConfigReader {
 public:
  ConfigReader(fs::path file, std::vector<engine::LoadMessage>& msgs)
      : file_(std::move(file)), msgs_(msgs) {}

  engine::SourcePos pos(const YAML::Node& n) const {
    auto m = n.Mark();
    return {file_.string(), m.is_null() ? 0 : m.line + 1, m.is_null() ? 0 : m.column + 1};
  }
  void warn(const YAML::Node& n, const std::string& item, const std::string& text) {
    auto p = pos(n);
    msgs_.push_back({engine::LoadCode::unknown_key, p.file, p.line, p.column, "", item, text});
  }

  std::string scalar(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) throw Bad{n.Mark(), what + " must be a single value, not a list or map"};
    return n.as<std::string>();
  }
  std::vector<std::string> strings(const YAML::Node& n, const std::string& what) const {
    if (n.IsScalar()) return {n.as<std::string>()};
    if (!n.IsSequence()) throw Bad{n.Mark(), what + " must be a list of names"};
    std::vector<std::string> out;
    for (const auto& e : n) out.push_back(scalar(e, what + " entries"));
    return out;
  }
  bool boolean(const YAML::Node& n, const std::string& what) const {
    std::string v = scalar(n, what);
    if (v == "true" || v == "yes" || v == "on") return true;
    if (v == "false" || v == "no" || v == "off") return false;
    throw Bad{n.Mark(), what + " must be true or false, not '" + v + "'"};
  }
  double number(const YAML::Node& n, const std::string& what, double min, double max) const {
    std::string v = scalar(n, what);
    char* end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !std::isfinite(d) || d < min || d > max)
      throw Bad{n.Mark(), what + " must be a number from " +
                              std::to_string(static_cast<long>(min)) + " to " +
                              std::to_string(static_cast<long>(max)) + ", not '" + v + "'"};
    return d;
  }
  void keys(const YAML::Node& map, const std::string& section,
            std::initializer_list<const char*> known) {
    for (const auto& kv : map) {
      std::string k = scalar(kv.first, section + " keys");
      if (std::none_of(known.begin(), known.end(), [&](const char* x) { return k == x; }))
        warn(kv.first, section, "unknown key '" + section + "." + k + "' ignored");
    }
  }

  void read_kb(const YAML::Node& kb, AppConfig& cfg);
  void read_limits(const YAML::Node& limits, Limits& out);

 private:
  fs::path file_;
  std::vector<engine::LoadMessage>& msgs_;
};

void ConfigReader::read_kb(const YAML::Node& kb, AppConfig& cfg) {
  if (!kb.IsMap()) throw Bad{kb.Mark(), "kb must be a map (paths, packs, enable, disable, params)"};
  keys(kb, "kb", {"paths", "packs", "enable", "disable", "params", "builtin", "min_maturity"});
  auto& sel = cfg.selection;
  if (auto paths = kb["paths"]) {
    if (!paths.IsSequence()) throw Bad{paths.Mark(), "kb.paths must be a list of folders"};
    for (const auto& e : paths) {
      fs::path p = scalar(e, "kb.paths entries");
      if (p.is_relative()) p = file_.parent_path() / p;
      cfg.kb_paths.push_back({p, "project", false, true, pos(e)});
    }
  }
  if (auto v = kb["packs"]) sel.only = strings(v, "kb.packs");
  if (auto v = kb["enable"]) sel.enable = strings(v, "kb.enable");
  if (auto v = kb["disable"]) sel.disable = strings(v, "kb.disable");
  if (auto v = kb["builtin"]) cfg.builtin = boolean(v, "kb.builtin");
  if (auto v = kb["min_maturity"]) {
    sel.min_maturity = scalar(v, "kb.min_maturity");
    if (engine::maturity_rank(sel.min_maturity) < 1)
      throw Bad{v.Mark(), "kb.min_maturity must be sandbox, incubating or stable"};
  }
  if (auto params = kb["params"]) {
    if (!params.IsMap()) throw Bad{params.Mark(), "kb.params must be a map pack -> {param: value}"};
    sel.params_pos = pos(params);
    for (const auto& pk : params) {
      std::string pack = scalar(pk.first, "kb.params keys");
      if (!pk.second.IsMap())
        throw Bad{pk.second.Mark(), "kb.params." + pack + " must be a map param -> value"};
      auto& target = sel.params[pack];
      for (const auto& kv : pk.second)
        target[scalar(kv.first, "param names")] = {
            scalar(kv.second, "kb.params." + pack + "." + kv.first.as<std::string>()),
            pos(kv.second)};
    }
  }
}

void ConfigReader::read_limits(const YAML::Node& limits, Limits& out) {
  if (!limits.IsMap()) throw Bad{limits.Mark(), "limits must be a map"};
  keys(limits, "limits",
       {"pack_time", "pack_memory", "pack_max_firings", "isolate", "max_input", "pack_time_ms",
        "pack_memory_mib", "max_input_mib"});
  // Durations and sizes take the one unit syntax of every section (app/config_units.h); the
  // former unit-in-the-name keys still read, with a warning naming the new spelling.
  auto duration = [&](const YAML::Node& v, const std::string& what, std::chrono::milliseconds lo,
                      std::chrono::milliseconds hi) {
    auto d = v.IsScalar() ? parse_duration(v.as<std::string>()) : std::nullopt;
    if (!d || *d < lo || *d > hi)
      throw Bad{v.Mark(), what + " must be a duration such as 500ms, 10s or 2m, between " +
                              std::to_string(lo.count()) + "ms and " +
                              std::to_string(hi.count() / 1000) + "s"};
    return *d;
  };
  auto size = [&](const YAML::Node& v, const std::string& what, uint64_t lo, uint64_t hi) {
    auto b = v.IsScalar() ? parse_size(v.as<std::string>()) : std::nullopt;
    if (!b || *b < lo || *b > hi)
      throw Bad{v.Mark(), what + " must be a size such as 512MiB or 4GiB, between " +
                              std::to_string(lo >> 20) + "MiB and " + std::to_string(hi >> 20) +
                              "MiB"};
    return *b;
  };
  auto old_key = [&](const char* key, const char* now, const std::string& example) {
    if (auto v = limits[key])
      warn(v, "limits",
           std::string("limits.") + key + " is the former spelling: write limits." + now + ": " +
               example);
  };
  old_key("pack_time_ms", "pack_time", "10s");
  old_key("pack_memory_mib", "pack_memory", "512MiB");
  old_key("max_input_mib", "max_input", "20GiB");
  if (auto v = limits["pack_time_ms"])
    out.pack_budget.time =
        std::chrono::milliseconds(static_cast<long>(number(v, "limits.pack_time_ms", 1, 3600000)));
  if (auto v = limits["pack_time"])
    out.pack_budget.time = duration(v, "limits.pack_time", std::chrono::milliseconds(1),
                                    std::chrono::hours(1));
  if (auto v = limits["pack_memory_mib"])
    out.pack_budget.memory_bytes =
        static_cast<size_t>(number(v, "limits.pack_memory_mib", 16, 1 << 20)) << 20;
  if (auto v = limits["pack_memory"])
    out.pack_budget.memory_bytes =
        static_cast<size_t>(size(v, "limits.pack_memory", 16ull << 20, 1ull << 40));
  if (auto v = limits["pack_max_firings"])
    out.pack_budget.max_firings =
        static_cast<int64_t>(number(v, "limits.pack_max_firings", 1, 1e12));
  if (auto v = limits["isolate"]) {
    std::string mode = scalar(v, "limits.isolate");
    if (mode != "untrusted" && mode != "all" && mode != "none")
      throw Bad{v.Mark(), "limits.isolate must be untrusted, all or none"};
    out.isolate_untrusted = mode != "none";
    out.isolate_all = mode == "all";
  }
  if (auto v = limits["max_input_mib"])
    out.max_input_bytes = static_cast<uint64_t>(number(v, "limits.max_input_mib", 0, 1e9)) << 20;
  if (auto v = limits["max_input"]) out.max_input_bytes = size(v, "limits.max_input", 0, 1ull << 60);
}

}  // namespace

Result<ConfigLoad> read_config_file(const fs::path& file,
                                    const std::vector<std::string>& known_sections) {
  ConfigLoad out;
  out.config.file = file;
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::BadFile&) {
    return Error{ErrorKind::usage, file.string() + ": cannot read the config file"};
  } catch (const YAML::Exception& e) {
    return Error{ErrorKind::usage, file.string() + ":" + std::to_string(e.mark.line + 1) + ":" +
                                       std::to_string(e.mark.column + 1) + ": " + e.msg};
  }
  if (root.IsNull()) return out;  // an empty file is an empty config
  ConfigReader reader(file, out.messages);
  try {
    if (!root.IsMap()) throw Bad{root.Mark(), "the config must be a map of sections (kb, limits)"};
    for (const auto& kv : root) {
      std::string key = reader.scalar(kv.first, "section names");
      if (key == "kb") {
        reader.read_kb(kv.second, out.config);
      } else if (key == "limits") {
        reader.read_limits(kv.second, out.config.limits);
      } else if (std::find(known_sections.begin(), known_sections.end(), key) ==
                 known_sections.end()) {
        reader.warn(kv.first, "", "unknown section '" + key + "' ignored");
      }
    }
  } catch (const Bad& b) {
    return Error{ErrorKind::usage, file.string() + ":" + std::to_string(b.mark.line + 1) + ":" +
                                       std::to_string(b.mark.column + 1) + ": " + b.text};
  } catch (const YAML::Exception& e) {
    return Error{ErrorKind::usage,
                 file.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg};
  }
  return out;
}

}  // namespace perfsage::app
