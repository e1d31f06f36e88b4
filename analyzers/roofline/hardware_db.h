// The hardware database: one YAML file per part under knowledge_bases/hardware/, each number
// with its source and whether it is published or derived, and per GPU part its architecture
// and the precisions its matrix units run. Matching maps a run's chip or GPU name (info.json,
// Kineto deviceProperties) to a part; an AMD device with a generic name is matched by its CU
// count and memory.
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
  std::string arch;  // volta, turing, ampere, ada, hopper, blackwell, cdna1..3; empty unknown
  std::string isa;   // sm_70, sm_90, gfx90a, ...; empty unknown
  // Precisions the matrix units (Tensor Cores, MFMA matrix cores) run: fp16, bf16, tf32 (AMD
  // XF32 counts), fp8, int8. nullopt: not stated (unknown), not "none".
  std::optional<std::vector<std::string>> matrix;
};

// The precisions a matrix_* slot speaks for.
inline constexpr const char* kMatrixPrecisions[] = {"fp16", "bf16", "tf32", "fp8"};

// What the run knows about its device (hardware table), used for matching.
struct RunDevice {
  std::string name;    // e.g. "NVIDIA A100-PG509-200", "Ascend910B"
  std::string vendor;  // nvidia | amd | huawei, or empty; see device_vendor()
  std::string isa;     // AMD gfx id when the run names one (gcnArchName), else empty
  std::optional<double> memory_gib, freq_mhz;
  std::optional<int> cube_cores, sm_count;  // sm_count: SMs (NVIDIA) or CUs (AMD)
  // computeMajor/computeMinor as the run reports them: a CUDA compute capability on NVIDIA,
  // but on AMD the gfx id's digits (9.0 for gfx908 and gfx90a, 9.4 for gfx942).
  std::optional<int> compute_major, compute_minor;
};

struct MatchResult {
  const Part* part = nullptr;
  std::string how;                      // alias | pattern | generic | vendor | none
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
  MatchResult match_vendor(const RunDevice& dev) const;  // AMD: CU count, memory, gfx id
  std::vector<Part> parts_;
};

// The device's vendor: the run's own vendor field, else its name (NVIDIA, Tesla, GeForce,
// Quadro -> nvidia; AMD, Instinct, Radeon, gfx -> amd; Ascend -> huawei); empty when unknown.
std::string device_vendor(const RunDevice& dev);

// Architecture and matrix precisions an NVIDIA compute capability implies (7.0 Volta: fp16;
// 7.5 Turing: fp16, int8; 8.x Ampere: + bf16, tf32; 8.9 Ada, 9.0 Hopper, 10+ Blackwell:
// + fp8). Only for NVIDIA devices: AMD reports gfx digits in the same fields. Empty arch
// when the capability is not one of these.
struct CudaArch {
  std::string arch, isa;
  std::optional<std::vector<std::string>> matrix;
};
CudaArch cuda_arch(int major, int minor);

// Lower-case with spaces, '-', '_' and a leading vendor word removed: "NVIDIA H100 80GB HBM3"
// and "H100-80GB-HBM3" compare equal.
std::string normalize_name(const std::string& s);

}  // namespace perfsage::analyzers::roofline
