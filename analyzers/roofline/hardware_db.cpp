#include "analyzers/roofline/hardware_db.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <stdexcept>

namespace perfsage::analyzers::roofline {
namespace fs = std::filesystem;
namespace {

std::string where(const Part& p, const std::string& key) {
  return p.file + ": " + key;
}

SpecValue read_value(const Part& p, const std::string& key, const YAML::Node& n) {
  if (!n.IsMap() || !n["value"])
    throw std::runtime_error(where(p, key) + ": expected {value, kind, source}");
  SpecValue v;
  try {
    v.value = n["value"].as<double>();
  } catch (const YAML::Exception&) {
    throw std::runtime_error(where(p, key) + ": value must be a number");
  }
  v.kind = n["kind"] ? n["kind"].as<std::string>() : "";
  v.source = n["source"] ? n["source"].as<std::string>() : "";
  if (v.kind != "published" && v.kind != "derived")
    throw std::runtime_error(where(p, key) + ": kind must be published or derived");
  if (v.source.empty()) throw std::runtime_error(where(p, key) + ": source is required");
  if (!(v.value > 0) || !std::isfinite(v.value))
    throw std::runtime_error(where(p, key) + ": value must be positive");
  return v;
}

std::vector<std::string> read_list(const YAML::Node& n) {
  std::vector<std::string> out;
  if (n && n.IsSequence())
    for (const auto& i : n) out.push_back(i.as<std::string>());
  return out;
}

Part read_part(const fs::path& file) {
  Part p;
  p.file = file.filename().string();
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(file.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!doc.IsMap() || !doc["name"]) throw std::runtime_error(p.file + ": expected a map with name");
  p.name = doc["name"].as<std::string>();
  p.vendor = doc["vendor"] ? doc["vendor"].as<std::string>() : "";
  p.family = doc["family"] ? doc["family"].as<std::string>() : "";
  p.aliases = read_list(doc["aliases"]);
  p.aliases.push_back(p.name);
  p.patterns = read_list(doc["patterns"]);
  p.generic = read_list(doc["generic"]);
  if (doc["min_memory_gib"]) p.min_memory_gib = doc["min_memory_gib"].as<double>();
  if (doc["max_memory_gib"]) p.max_memory_gib = doc["max_memory_gib"].as<double>();
  auto opt = [&](const char* key, std::optional<SpecValue>& out) {
    if (doc[key]) out = read_value(p, key, doc[key]);
  };
  opt("cube_cores", p.cube_cores);
  opt("vector_cores", p.vector_cores);
  opt("sm_count", p.sm_count);
  opt("freq_mhz", p.freq_mhz);
  opt("memory_bandwidth_gbs", p.bandwidth_gbs);
  opt("l2_mib", p.l2_mib);
  opt("memory_gib", p.memory_gib);
  if (auto peaks = doc["peak_tflops"]; peaks && peaks.IsMap()) {
    for (const auto& kv : peaks) {
      auto k = kv.first.as<std::string>();
      p.peak_tflops[k] = read_value(p, "peak_tflops." + k, kv.second);
    }
  }
  for (const auto& re : p.patterns) {
    try {
      std::regex(re, std::regex::icase);
    } catch (const std::regex_error&) {
      throw std::runtime_error(where(p, "patterns") + ": invalid regex '" + re + "'");
    }
  }
  return p;
}

double fp16_peak(const Part* p) {
  auto it = p->peak_tflops.find("fp16");
  return it == p->peak_tflops.end() ? 0 : it->second.value;
}

// Does the run's memory size fit the part's variant bounds?
bool memory_fits(const Part& p, const RunDevice& d) {
  if (!d.memory_gib) return true;
  if (p.min_memory_gib && *d.memory_gib < *p.min_memory_gib) return false;
  if (p.max_memory_gib && *d.memory_gib >= *p.max_memory_gib) return false;
  return true;
}

}  // namespace

std::string normalize_name(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '-' || c == '_') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (std::string_view vendor : {"nvidia", "tesla", "huawei"}) {
    if (out.rfind(vendor, 0) == 0 && out.size() > vendor.size()) out.erase(0, vendor.size());
  }
  return out;
}

HardwareDb HardwareDb::load(const fs::path& dir) {
  HardwareDb db;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return db;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    Part p = read_part(f);
    if (db.find(p.name)) throw std::runtime_error(p.file + ": duplicate part name " + p.name);
    db.parts_.push_back(std::move(p));
  }
  return db;
}

HardwareDb HardwareDb::load(const std::vector<fs::path>& dirs) {
  HardwareDb db;
  for (const auto& dir : dirs) {
    HardwareDb more = load(dir);
    for (auto& p : more.parts_) {
      auto it = std::find_if(db.parts_.begin(), db.parts_.end(),
                             [&](const Part& q) { return q.name == p.name; });
      if (it != db.parts_.end())
        *it = std::move(p);
      else
        db.parts_.push_back(std::move(p));
    }
  }
  return db;
}

const Part* HardwareDb::find(const std::string& name) const {
  for (const auto& p : parts_)
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<const Part*> HardwareDb::by_cube_cores(int cores) const {
  std::vector<const Part*> out;
  for (const auto& p : parts_)
    if (p.family == "ascend" && p.cube_cores && std::lround(p.cube_cores->value) == cores)
      out.push_back(&p);
  std::stable_sort(out.begin(), out.end(),
                   [](const Part* a, const Part* b) { return fp16_peak(a) < fp16_peak(b); });
  return out;
}

MatchResult HardwareDb::match(const RunDevice& dev) const {
  MatchResult r;
  if (dev.name.empty()) {
    r.how = "none";
    return r;
  }
  std::string norm = normalize_name(dev.name);
  for (const auto& p : parts_)
    for (const auto& a : p.aliases)
      if (normalize_name(a) == norm) {
        r.part = &p;
        r.how = "alias";
        return r;
      }
  for (const auto& p : parts_) {
    bool hit = std::any_of(p.patterns.begin(), p.patterns.end(), [&](const std::string& re) {
      return std::regex_search(dev.name, std::regex(re, std::regex::icase));
    });
    if (hit && memory_fits(p, dev)) r.candidates.push_back(&p);
  }
  if (!r.candidates.empty()) {
    r.part = r.candidates.front();
    r.how = "pattern";
    if (r.candidates.size() == 1) r.candidates.clear();
    return r;
  }
  // Generic family name ("Ascend910B"): the run's core count and clock pick the part.
  for (const auto& p : parts_) {
    bool generic = std::any_of(p.generic.begin(), p.generic.end(),
                               [&](const std::string& g) { return normalize_name(g) == norm; });
    if (!generic) continue;
    if (dev.cube_cores && p.cube_cores && std::lround(p.cube_cores->value) != *dev.cube_cores)
      continue;
    r.candidates.push_back(&p);
  }
  if (r.candidates.empty()) {
    r.how = "none";
    return r;
  }
  if (dev.freq_mhz) {
    auto dist = [&](const Part* p) {
      return p->freq_mhz ? std::abs(p->freq_mhz->value - *dev.freq_mhz) : 1e9;
    };
    std::stable_sort(r.candidates.begin(), r.candidates.end(),
                     [&](const Part* a, const Part* b) { return dist(a) < dist(b); });
    if (r.candidates.size() > 1 && dist(r.candidates[0]) < dist(r.candidates[1]))
      r.candidates.erase(r.candidates.begin() + 1, r.candidates.end());
  }
  r.part = r.candidates.front();
  r.how = "generic";
  if (r.candidates.size() == 1) r.candidates.clear();
  return r;
}

}  // namespace perfsage::analyzers::roofline
