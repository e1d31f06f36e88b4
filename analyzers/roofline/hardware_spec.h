// Resolves the run's hardware: the run's own facts (hardware table) override the hardware
// database; without a chip name on Ascend the cube core count is inferred from the largest
// AI_CORE block dim. Writes one hardware_specs row per run.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "analyzers/roofline/hardware_db.h"
#include "store/database.h"

namespace perfsage::analyzers::roofline {

struct HardwareSpec {
  std::string part;                // matched part name, empty when none
  std::string match;               // alias | pattern | generic | vendor | block_dim | none
  std::string candidates;          // other parts that fit equally, comma-separated
  std::string family;              // ascend | cuda (any GPU: CUDA or ROCm/HIP) | unknown
  std::string vendor = "unknown";  // nvidia | amd | huawei | unknown
  std::string arch = "unknown";    // the part's, else derived from an NVIDIA compute capability
  std::string isa = "unknown";     // sm_80, gfx90a, ...
  // yes | no | unknown per precision of kMatrixPrecisions (fp16, bf16, tf32, fp8).
  std::map<std::string, std::string> matrix;
  double cube_cores = 0, vector_cores = 0, sm_count = 0, freq_mhz = 0;
  double memory_gib = 0, l2_mib = 0;
  // computeMajor as the run reports it: a CUDA compute capability on NVIDIA; on AMD the gfx
  // id's first digits (9 for gfx908, gfx90a and gfx942), never a CUDA generation.
  int compute_major = 0;
  std::map<std::string, double>
      peak;              // FLOP/s by precision (fp32, tf32, fp16, bf16, int8, vector_fp16)
  double bandwidth = 0;  // bytes/s
  // Where each group of numbers came from: run | table | inferred | unknown.
  std::string cores_source = "unknown", freq_source = "unknown", peak_source = "unknown",
              bw_source = "unknown";
  std::string note;

  double peak_for(const std::string& precision) const;         // 0 when unknown
  std::string matrix_for(const std::string& precision) const;  // yes | no | unknown
};

HardwareSpec resolve_hardware(store::Database& db, int64_t run_id, const HardwareDb& hw);

// Rebuilds the run's hardware_specs row.
HardwareSpec compute_hardware_spec(store::Database& db, int64_t run_id, const HardwareDb& hw);
// The same with the op task features (any op task, the largest cube block dim) read from the
// ranks' rank_totals and op_block_dims instead of the events: the spec of a cluster run
// assembled from rank extracts (docs/scale-out.md).
HardwareSpec compute_hardware_spec_of_ranks(store::Database& db, int64_t run_id,
                                            const HardwareDb& hw);

}  // namespace perfsage::analyzers::roofline
