#include "analyzers/roofline/hardware_spec.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <regex>
#include <string_view>

#include "analyzers/roofline/tables.h"
#include "store/block_scan.h"

namespace perfsage::analyzers::roofline {
namespace {

// Ascend cube array: 16x16x16 FP16 MACs = 8192 FLOP per cycle per core (knowledge.md §10.2).
constexpr double kCubeFlopPerCycle = 8192;
constexpr double kVectorFlopPerCycle = 128;

struct RunFacts {
  RunDevice dev;
  std::optional<int> aiv_num;
  int compute_major = 0, compute_minor = 0;
  bool ascend_ops = false;
  int max_cube_block_dim = 0;
};

// The gfx id an AMD device names, in its name ("gfx90a") or in Kineto's deviceProperties
// ("gcnArchName": "gfx90a:sramecc+:xnack-"); empty when none.
std::string gfx_id(const std::string& text) {
  static const std::regex re("gfx[0-9a-f]+", std::regex::icase);
  std::smatch m;
  if (!std::regex_search(text, m, re)) return "";
  std::string id = m.str();
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return id;
}

// The run's facts; the op task features from the events, or (of_ranks) from the ranks' tables.
RunFacts read_run(store::Database& db, int64_t run_id, bool of_ranks) {
  RunFacts f;
  auto st = db.prepare(
      "SELECT coalesce(name, chip), ai_core_num, aiv_num, sm_count, freq_mhz, memory_bytes, "
      "compute_capability, vendor, props FROM hardware WHERE run_id = ?1 "
      "ORDER BY (coalesce(name, chip) IS NULL), rank, device_id LIMIT 1");
  st.bind(1, run_id);
  if (st.step()) {
    if (!st.is_null(0)) f.dev.name = st.text(0);
    if (!st.is_null(1) && st.int64(1) > 0) f.dev.cube_cores = static_cast<int>(st.int64(1));
    if (!st.is_null(2) && st.int64(2) > 0) f.aiv_num = static_cast<int>(st.int64(2));
    if (!st.is_null(3) && st.int64(3) > 0) f.dev.sm_count = static_cast<int>(st.int64(3));
    if (!st.is_null(4) && st.real(4) > 0) f.dev.freq_mhz = st.real(4);
    if (!st.is_null(5) && st.int64(5) > 0)
      f.dev.memory_gib = static_cast<double>(st.int64(5)) / (1024.0 * 1024 * 1024);
    if (!st.is_null(6)) {
      std::string cc = st.text(6);  // "8.0"; on AMD "9.0" / "9.4" (gfx digits)
      f.compute_major = std::atoi(cc.c_str());
      auto dot = cc.find('.');
      if (dot != std::string::npos) f.compute_minor = std::atoi(cc.c_str() + dot + 1);
      if (f.compute_major > 0) {
        f.dev.compute_major = f.compute_major;
        f.dev.compute_minor = f.compute_minor;
      }
    }
    if (!st.is_null(7)) f.dev.vendor = st.text(7);
    f.dev.isa = gfx_id(f.dev.name);
    if (f.dev.isa.empty() && !st.is_null(8)) {
      std::string props = st.text(8);
      auto at = props.find("\"gcnArchName\"");
      if (at != std::string::npos) f.dev.isa = gfx_id(props.substr(at, 64));
    }
  }
  {
    auto r = db.prepare("SELECT chip, device FROM runs WHERE id = ?1");
    r.bind(1, run_id);
    if (r.step()) {
      if (f.dev.name.empty() && !r.is_null(0)) f.dev.name = r.text(0);
      // The Kineto collector says rocm for a run on AMD GPUs.
      if (f.dev.vendor.empty() && !r.is_null(1) && r.text(1) == "rocm") f.dev.vendor = "AMD";
    }
  }
  if (of_ranks) {
    // The same from the ranks' rank_totals and op_block_dims (a cube block dim that is not
    // above 0 is never used).
    auto st = db.prepare(
        "SELECT EXISTS (SELECT 1 FROM rank_totals WHERE run_id = ?1 AND op_tasks > 0), "
        "(SELECT max(block_dim) FROM op_block_dims WHERE run_id = ?1 AND core_type IN "
        "('AI_CORE', 'MIX_AIC'))");
    st.bind(1, run_id);
    if (st.step()) {
      f.ascend_ops = st.int64(0) != 0;
      if (!st.is_null(1)) f.max_cube_block_dim = static_cast<int>(st.int64(1));
    }
    return f;
  }
  // Whether the run has op tasks, and the largest cube block dim: two columns read from the
  // blocks (the same through SQL's virtual table cost 0.2 s per million tasks).
  const auto& schema = store::op_task_schema();
  const int c_core = store::column_index(schema, "core_type"),
            c_block = store::column_index(schema, "block_dim");
  std::optional<int64_t> max_block;
  store::BlockScan scan(db, schema, run_id, std::nullopt, {"core_type", "block_dim"});
  while (scan.next()) {
    auto& b = scan.block();
    f.ascend_ops = f.ascend_ops || b.rows() > 0;
    if (b.all_null(c_block)) continue;
    for (size_t r = 0; r < b.rows(); ++r) {
      if (b.is_null(c_block, r) || b.is_null(c_core, r)) continue;
      std::string_view core = b.text_at(c_core, r);
      if (core != "AI_CORE" && core != "MIX_AIC") continue;
      max_block = std::max(max_block.value_or(b.int_at(c_block, r)), b.int_at(c_block, r));
    }
  }
  if (max_block) f.max_cube_block_dim = static_cast<int>(*max_block);
  return f;
}

std::string join_names(const std::vector<const Part*>& parts) {
  std::string out;
  for (const auto* p : parts) out += (out.empty() ? "" : ",") + p->name;
  return out;
}

}  // namespace

double HardwareSpec::peak_for(const std::string& precision) const {
  auto it = peak.find(precision);
  return it == peak.end() ? 0 : it->second;
}

std::string HardwareSpec::matrix_for(const std::string& precision) const {
  auto it = matrix.find(precision);
  return it == matrix.end() ? "unknown" : it->second;
}

namespace {

// vendor, arch, isa and the matrix precisions: the part's; an NVIDIA device the table does not
// name (or a part without them) gets those its compute capability implies. AMD reports gfx
// digits where NVIDIA reports the compute capability, so nothing is derived from them.
void resolve_precisions(HardwareSpec& s, const RunFacts& f, const Part* part) {
  std::string vendor = part && !part->vendor.empty() ? part->vendor : device_vendor(f.dev);
  if (vendor.empty() && f.ascend_ops) vendor = "huawei";
  s.vendor = vendor.empty() ? "unknown" : vendor;
  std::string arch = part ? part->arch : "", isa = part ? part->isa : "";
  std::optional<std::vector<std::string>> matrix;
  if (part) matrix = part->matrix;
  std::string cc = std::to_string(f.compute_major) + "." + std::to_string(f.compute_minor);
  if (vendor == "nvidia" && f.compute_major > 0 && (arch.empty() || !matrix)) {
    CudaArch derived = cuda_arch(f.compute_major, f.compute_minor);
    if (!derived.arch.empty()) {
      std::string what = arch.empty() && !matrix ? "arch " + derived.arch + " and matrix precisions"
                         : arch.empty()          ? "arch " + derived.arch
                                                 : "matrix precisions";
      if (arch.empty()) arch = derived.arch;
      if (isa.empty()) isa = derived.isa;
      if (!matrix) matrix = derived.matrix;
      s.note += (s.note.empty() ? "" : "; ") + what + " derived from compute capability " + cc;
    }
  } else if (vendor == "amd" && !part && f.compute_major > 0) {
    s.note += (s.note.empty() ? "" : "; ") + std::string("compute capability ") + cc +
              " is a gfx id on AMD, not a CUDA generation: arch and matrix precisions unknown";
  }
  s.arch = arch.empty() ? "unknown" : arch;
  s.isa = isa.empty() ? "unknown" : isa;
  for (const char* prec : kMatrixPrecisions) {
    s.matrix[prec] = !matrix                                                            ? "unknown"
                     : std::find(matrix->begin(), matrix->end(), prec) != matrix->end() ? "yes"
                                                                                        : "no";
  }
}

}  // namespace

namespace {

HardwareSpec resolve(store::Database& db, int64_t run_id, const HardwareDb& hw, bool of_ranks) {
  RunFacts f = read_run(db, run_id, of_ranks);
  HardwareSpec s;
  MatchResult m = hw.match(f.dev);
  s.match = m.how;
  const Part* part = m.part;
  if (!part && f.ascend_ops && !f.dev.cube_cores && f.max_cube_block_dim > 0) {
    auto cands = hw.by_cube_cores(f.max_cube_block_dim);
    if (!cands.empty()) {
      part = cands.front();
      s.match = "block_dim";
      if (cands.size() > 1) m.candidates = cands;
    }
    s.note = "no chip name or core count in the run; " + std::to_string(f.max_cube_block_dim) +
             " cube cores inferred from the largest AI_CORE block dim";
  }
  if (m.candidates.size() > 1) s.candidates = join_names(m.candidates);
  s.part = part ? part->name : "";
  s.family = part ? part->family : f.ascend_ops ? "ascend" : f.dev.sm_count ? "cuda" : "unknown";
  s.compute_major = f.compute_major;

  // Core counts and clock: the run wins over the table.
  double table_cores = part && part->cube_cores ? part->cube_cores->value : 0;
  double table_sms = part && part->sm_count ? part->sm_count->value : 0;
  double table_freq = part && part->freq_mhz ? part->freq_mhz->value : 0;
  if (f.dev.cube_cores || f.dev.sm_count) {
    s.cores_source = "run";
    s.cube_cores = f.dev.cube_cores.value_or(0);
    s.sm_count = f.dev.sm_count.value_or(0);
    s.vector_cores = f.aiv_num                    ? *f.aiv_num
                     : part && part->vector_cores ? part->vector_cores->value
                                                  : 0;
  } else if (part) {
    s.cores_source = s.match == "block_dim" ? "inferred" : "table";
    s.cube_cores = table_cores;
    s.sm_count = table_sms;
    s.vector_cores = part->vector_cores ? part->vector_cores->value : 0;
  }
  if (f.dev.freq_mhz) {
    s.freq_mhz = *f.dev.freq_mhz;
    s.freq_source = "run";
  } else if (table_freq > 0) {
    s.freq_mhz = table_freq;
    s.freq_source = "table";
  }
  if (f.dev.memory_gib)
    s.memory_gib = *f.dev.memory_gib;
  else if (part && part->memory_gib)
    s.memory_gib = part->memory_gib->value;
  if (part && part->l2_mib) s.l2_mib = part->l2_mib->value;

  // Peaks: the table's, rescaled when the run's cores or clock differ from the table's.
  if (part) {
    for (const auto& [k, v] : part->peak_tflops) s.peak[k] = v.value * 1e12;
    if (!s.peak.empty()) s.peak_source = s.match == "block_dim" ? "inferred" : "table";
  }
  bool ascend = s.family == "ascend";
  if (ascend && s.cube_cores > 0 && s.freq_mhz > 0 &&
      (s.cores_source == "run" || s.freq_source == "run" || s.peak.empty())) {
    double cube = s.cube_cores * kCubeFlopPerCycle * s.freq_mhz * 1e6;
    bool changed = std::abs(cube - s.peak_for("fp16")) > 0.01 * cube;
    if (changed || s.peak.empty()) {
      s.peak["fp16"] = s.peak["bf16"] = cube;
      s.peak["int8"] = 2 * cube;
      if (s.vector_cores > 0)
        s.peak["vector_fp16"] = s.vector_cores * kVectorFlopPerCycle * s.freq_mhz * 1e6;
      s.peak_source = "run";
    }
  } else if (!ascend && part && s.cores_source == "run" && table_sms > 0 && s.sm_count > 0 &&
             std::lround(s.sm_count) != std::lround(table_sms)) {
    for (auto& [k, v] : s.peak) v *= s.sm_count / table_sms;  // e.g. a MIG slice
    s.peak_source = "run";
  }
  if (part && part->bandwidth_gbs) {
    s.bandwidth = part->bandwidth_gbs->value * 1e9;
    s.bw_source = s.match == "block_dim" ? "inferred" : "table";
  }
  if (!part) {
    if (!f.dev.name.empty())
      s.note = "chip '" + f.dev.name + "' is not in the hardware database";
    else if (s.note.empty())
      s.note = "no chip name, core count or block dims in the run";
  } else if (s.match == "vendor") {
    s.note = "generic name '" + f.dev.name + "': matched by vendor, " +
             std::to_string(*f.dev.sm_count) + " CUs" +
             (f.dev.memory_gib
                  ? " and " + std::to_string(std::lround(*f.dev.memory_gib)) + " GiB of memory"
                  : std::string()) +
             (s.candidates.empty() ? "" : "; the parts listed in candidates fit as well");
  }
  resolve_precisions(s, f, part);
  return s;
}

HardwareSpec write_spec(store::Database& db, int64_t run_id, HardwareSpec s) {
  db.prepare("DELETE FROM hardware_specs WHERE run_id = ?1").bind(1, run_id).run();
  auto opt = [](double v) { return v > 0 ? std::optional<double>(v) : std::nullopt; };
  store::RowInserter(db, tables::hardware_specs())
      .insert(run_id, s.part, s.match, s.candidates, s.family, opt(s.cube_cores),
              opt(s.vector_cores), opt(s.sm_count), opt(s.freq_mhz), opt(s.memory_gib),
              opt(s.l2_mib), s.compute_major, opt(s.peak_for("fp32")), opt(s.peak_for("tf32")),
              opt(s.peak_for("fp16")), opt(s.peak_for("bf16")), opt(s.peak_for("int8")),
              opt(s.peak_for("vector_fp16")), opt(s.bandwidth), s.cores_source, s.freq_source,
              s.peak_source, s.bw_source, s.note, s.vendor, s.arch, s.isa, s.matrix_for("fp16"),
              s.matrix_for("bf16"), s.matrix_for("tf32"), s.matrix_for("fp8"));
  return s;
}

}  // namespace

HardwareSpec resolve_hardware(store::Database& db, int64_t run_id, const HardwareDb& hw) {
  return resolve(db, run_id, hw, false);
}

HardwareSpec compute_hardware_spec(store::Database& db, int64_t run_id, const HardwareDb& hw) {
  return write_spec(db, run_id, resolve(db, run_id, hw, false));
}

HardwareSpec compute_hardware_spec_of_ranks(store::Database& db, int64_t run_id,
                                            const HardwareDb& hw) {
  return write_spec(db, run_id, resolve(db, run_id, hw, true));
}

}  // namespace perfsage::analyzers::roofline
