// The hardware database: one YAML file per part under knowledge_bases/hardware/, each number
// with its source and whether it is published or derived. Matching maps a run's chip or GPU
// name (info.json, Kineto deviceProperties) to a part.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfsage::analyzers::roofline {

struct SpecValue {
  double value = 0;
  std::string kind;  // published | derived
  std::string source;
};

struct Part {
  std::string name, vendor, family, file;
  std::vector<std::string> aliases;   // exact names (case, spaces, '-' and '_' ignored)
  std::vector<std::string> patterns;  // case-insensitive regexes searched in the name
  std::vector<std::string> generic;   // family names resolved by core count and clock
  std::optional<double> min_memory_gib, max_memory_gib;  // disambiguate variants
  std::optional<SpecValue> cube_cores, vector_cores, sm_count, freq_mhz;
  std::optional<SpecValue> bandwidth_gbs, l2_mib, memory_gib;
  std::map<std::string, SpecValue> peak_tflops;  // fp32, tf32, fp16, bf16, int8, vector_fp16
};

// What the run knows about its device (hardware table), used for matching.
struct RunDevice {
  std::string name;  // e.g. "NVIDIA A100-PG509-200", "Ascend910B"
  std::optional<double> memory_gib, freq_mhz;
  std::optional<int> cube_cores, sm_count;
};

struct MatchResult {
  const Part* part = nullptr;
  std::string how;                      // alias | pattern | generic | none
  std::vector<const Part*> candidates;  // parts that fit equally (ambiguous generic names)
};

class HardwareDb {
 public:
  // Reads every *.yaml in dir; throws std::runtime_error naming the file and key on bad input.
  static HardwareDb load(const std::filesystem::path& dir);
  // Reads several folders in order (the built-in one, then those of the configured kb paths);
  // a part defined again in a later folder replaces the earlier definition. Where the folders
  // are is decided by the application (app/resources.h), never here.
  static HardwareDb load(const std::vector<std::filesystem::path>& dirs);

  const std::vector<Part>& parts() const { return parts_; }
  const Part* find(const std::string& name) const;  // by part name
  MatchResult match(const RunDevice& dev) const;
  // Parts of an Ascend family with this many cube cores (block-dim inference), fewest peak first.
  std::vector<const Part*> by_cube_cores(int cores) const;

 private:
  std::vector<Part> parts_;
};

// Lower-case with spaces, '-', '_' and a leading vendor word removed: "NVIDIA H100 80GB HBM3"
// and "H100-80GB-HBM3" compare equal.
std::string normalize_name(const std::string& s);

}  // namespace perfsage::analyzers::roofline
