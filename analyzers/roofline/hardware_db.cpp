#include "analyzers/roofline/hardware_db.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <set>
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

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// An optional scalar key; empty when absent.
std::string read_text(const Part& p, const YAML::Node& doc, const char* key) {
  const YAML::Node& n = doc[key];
  if (!n) return "";
  if (!n.IsScalar()) throw std::runtime_error(where(p, key) + ": expected a string");
  return n.as<std::string>();
}

const std::set<std::string, std::less<>> kVendors = {"nvidia", "amd", "huawei"};
const std::set<std::string, std::less<>> kArchs = {"pascal", "volta",  "turing",    "ampere",
                                                   "ada",    "hopper", "blackwell", "cdna1",
                                                   "cdna2",  "cdna3",  "cdna4"};
const std::set<std::string, std::less<>> kMatrix = {"fp16", "bf16", "tf32", "fp8", "int8"};

std::string listed(const std::set<std::string, std::less<>>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// arch, isa and matrix: what the part's matrix units run decides the precision advice.
void read_precisions(Part& p, const YAML::Node& doc) {
  p.arch = read_text(p, doc, "arch");
  if (!p.arch.empty() && !kArchs.count(p.arch))
    throw std::runtime_error(where(p, "arch") + ": unknown architecture '" + p.arch + "' (" +
                             listed(kArchs) + ")");
  p.isa = read_text(p, doc, "isa");
  if (!p.isa.empty()) {
    static const std::regex isa_re("sm_[0-9]+[a-z]?|gfx[0-9a-f]+");
    if (!std::regex_match(p.isa, isa_re))
      throw std::runtime_error(where(p, "isa") + ": expected sm_<digits> or gfx<id>, not '" +
                               p.isa + "'");
    bool cuda_isa = p.isa.rfind("sm_", 0) == 0;
    if ((cuda_isa && p.vendor == "amd") || (!cuda_isa && p.vendor == "nvidia"))
      throw std::runtime_error(where(p, "isa") + ": " + p.isa + " is not an " + p.vendor +
                               " architecture id");
  }
  const YAML::Node& m = doc["matrix"];
  if (!m) return;
  if (!m.IsSequence())
    throw std::runtime_error(where(p, "matrix") + ": expected a list of precisions (" +
                             listed(kMatrix) + ")");
  std::vector<std::string> out;
  for (const auto& i : m) {
    std::string prec = i.IsScalar() ? i.as<std::string>() : "";
    if (!kMatrix.count(prec))
      throw std::runtime_error(where(p, "matrix") + ": unknown precision '" + prec + "' (" +
                               listed(kMatrix) + ")");
    if (std::find(out.begin(), out.end(), prec) == out.end()) out.push_back(prec);
  }
  p.matrix = std::move(out);
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
  p.vendor = read_text(p, doc, "vendor");
  if (!p.vendor.empty() && !kVendors.count(p.vendor))
    throw std::runtime_error(where(p, "vendor") + ": unknown vendor '" + p.vendor + "' (" +
                             listed(kVendors) + ")");
  p.family = doc["family"] ? doc["family"].as<std::string>() : "";
  read_precisions(p, doc);
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

bool same_count(const std::optional<SpecValue>& table, int run) {
  return table && std::lround(table->value) == run;
}

// An AMD part fits the run's gfx id: the one it names (gcnArchName), or the digits HIP puts in
// computeMajor/computeMinor (gfx90a -> 9.0, gfx942 -> 9.4, gfx1100 -> 11.0).
bool gfx_fits(const Part& p, const RunDevice& d) {
  if (p.isa.rfind("gfx", 0) != 0 || p.isa.size() < 6) return true;
  if (!d.isa.empty()) return d.isa == p.isa;
  if (!d.compute_major) return true;
  int major = std::atoi(p.isa.substr(3, p.isa.size() - 5).c_str());
  int minor = p.isa[p.isa.size() - 2] - '0';
  return major == *d.compute_major && (!d.compute_minor || minor == *d.compute_minor);
}

}  // namespace

std::string normalize_name(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '-' || c == '_') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (std::string_view vendor : {"nvidia", "tesla", "huawei", "amd", "instinct"}) {
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

std::string device_vendor(const RunDevice& dev) {
  std::string v = lower(dev.vendor);
  if (contains(v, "nvidia")) return "nvidia";
  if (contains(v, "amd") || contains(v, "advanced micro")) return "amd";
  if (contains(v, "huawei")) return "huawei";
  std::string n = lower(dev.name);
  for (std::string_view w : {"nvidia", "tesla", "geforce", "quadro"})
    if (contains(n, w)) return "nvidia";
  for (std::string_view w : {"amd", "instinct", "radeon", "gfx"})
    if (contains(n, w)) return "amd";
  if (contains(n, "ascend")) return "huawei";
  if (dev.isa.rfind("gfx", 0) == 0) return "amd";
  return "";
}

CudaArch cuda_arch(int major, int minor) {
  using L = std::vector<std::string>;
  CudaArch a;
  if (major == 6) {
    a.arch = "pascal";
    a.matrix = L{};  // no Tensor Cores
  } else if (major == 7 && (minor == 0 || minor == 2)) {
    a.arch = "volta";
    a.matrix = L{"fp16"};
  } else if (major == 7 && minor == 5) {
    a.arch = "turing";
    a.matrix = L{"fp16", "int8"};
  } else if (major == 8 && minor != 9) {
    a.arch = "ampere";
    a.matrix = L{"fp16", "bf16", "tf32", "int8"};
  } else if (major == 8 && minor == 9) {
    a.arch = "ada";
    a.matrix = L{"fp16", "bf16", "tf32", "fp8", "int8"};
  } else if (major == 9 && minor == 0) {
    a.arch = "hopper";
    a.matrix = L{"fp16", "bf16", "tf32", "fp8", "int8"};
  } else if (major >= 10 && major <= 12) {
    a.arch = "blackwell";
    a.matrix = L{"fp16", "bf16", "tf32", "fp8", "int8"};
  } else {
    return a;
  }
  a.isa = "sm_" + std::to_string(major) + std::to_string(minor);
  return a;
}

MatchResult HardwareDb::match(const RunDevice& dev) const {
  MatchResult r;
  if (dev.name.empty()) return match_vendor(dev);
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
  // One name for several parts ("AMD Instinct MI250X / MI250"): the run's SM/CU count picks.
  if (r.candidates.size() > 1 && dev.sm_count) {
    std::vector<const Part*> same;
    for (const Part* p : r.candidates)
      if (same_count(p->sm_count, *dev.sm_count)) same.push_back(p);
    if (!same.empty()) r.candidates = std::move(same);
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
  if (r.candidates.empty()) return match_vendor(dev);
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

MatchResult HardwareDb::match_vendor(const RunDevice& dev) const {
  // ROCm names devices generically ("AMD Radeon Graphics"): an AMD device whose name names no
  // model is matched by its CU count, its memory (within 10 %) and its gfx id. A name that
  // names a model (MI325X) not in the database matches nothing rather than a look-alike.
  MatchResult r;
  r.how = "none";
  static const std::regex model("mi[0-9]+", std::regex::icase);
  if (device_vendor(dev) != "amd" || !dev.sm_count || std::regex_search(dev.name, model)) return r;
  for (const auto& p : parts_) {
    if (p.vendor != "amd" || !same_count(p.sm_count, *dev.sm_count) || !gfx_fits(p, dev)) continue;
    if (dev.memory_gib && p.memory_gib &&
        std::abs(*dev.memory_gib - p.memory_gib->value) > 0.1 * p.memory_gib->value)
      continue;
    r.candidates.push_back(&p);
  }
  if (r.candidates.empty()) return r;
  r.part = r.candidates.front();  // parts in load order (file names): deterministic
  r.how = "vendor";
  if (r.candidates.size() == 1) r.candidates.clear();
  return r;
}

}  // namespace perfsage::analyzers::roofline
