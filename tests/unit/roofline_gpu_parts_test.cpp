// GPU parts of the hardware database: NVIDIA T4 and the AMD Instinct parts load, ROCm devices
// match by name or by vendor, CU count and memory, and each part says which precisions its
// matrix units run (the hardware_specs columns and the hardware_spec fact).
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "analyzer_resources.h"
#include "analyzers/core/fact_types.h"
#include "analyzers/roofline/hardware_db.h"
#include "analyzers/roofline/hardware_spec.h"
#include "store/run_writer.h"
#include "store/schema.h"
#include "test_support.h"

using namespace perfsage;
using namespace perfsage::analyzers::roofline;

namespace {

const HardwareDb& shipped() {
  static const HardwareDb db =
      HardwareDb::load(test::source_dir() / "knowledge_bases" / "hardware");
  return db;
}

constexpr int64_t kGiB = 1024LL * 1024 * 1024;

// One run whose hardware row is what Kineto's deviceProperties gives (trace_ingest.cpp).
struct Device {
  std::string name, vendor, cc, props;
  std::optional<int64_t> sms, memory_bytes;
};

int64_t add_run(store::Database& db, const Device& d) {
  static int n = 0;
  store::RunWriter w(db, {"j", {}, "fp" + std::to_string(++n), "now"});
  int64_t id = w.run_id();
  store::Hardware hw;
  hw.device_id = 0;
  if (!d.name.empty()) hw.name = hw.chip = d.name;
  if (!d.vendor.empty()) hw.vendor = d.vendor;
  if (!d.cc.empty()) hw.compute_capability = d.cc;
  if (!d.props.empty()) hw.props = d.props;
  hw.sm_count = d.sms;
  hw.memory_bytes = d.memory_bytes;
  w.add(hw);
  w.commit();
  return id;
}

HardwareSpec spec(const Device& d) {
  test::AnalysisStore db;
  return compute_hardware_spec(db, add_run(db, d), shipped());
}

std::string matrix(const HardwareSpec& s) {
  return s.matrix_for("fp16") + " " + s.matrix_for("bf16") + " " + s.matrix_for("tf32") + " " +
         s.matrix_for("fp8");
}

}  // namespace

TEST_CASE("the GPU parts load with sourced numbers, arch, isa and matrix precisions") {
  const auto& db = shipped();
  struct Want {
    const char* name;
    const char* vendor;
    const char* arch;
    const char* isa;
    int sms;
  };
  for (const Want& w :
       {Want{"V100-SXM2", "nvidia", "volta", "sm_70", 80},
        Want{"T4", "nvidia", "turing", "sm_75", 40},
        Want{"A100-SXM4-40GB", "nvidia", "ampere", "sm_80", 108},
        Want{"A100-SXM4-80GB", "nvidia", "ampere", "sm_80", 108},
        Want{"H100-SXM5-80GB", "nvidia", "hopper", "sm_90", 132},
        Want{"H100-PCIe-80GB", "nvidia", "hopper", "sm_90", 114},
        Want{"H200-SXM-141GB", "nvidia", "hopper", "sm_90", 132},
        Want{"MI100", "amd", "cdna1", "gfx908", 120}, Want{"MI210", "amd", "cdna2", "gfx90a", 104},
        Want{"MI250-GCD", "amd", "cdna2", "gfx90a", 104},
        Want{"MI250X-GCD", "amd", "cdna2", "gfx90a", 110},
        Want{"MI300X", "amd", "cdna3", "gfx942", 304}}) {
    INFO(w.name);
    const Part* p = db.find(w.name);
    REQUIRE(p);
    CHECK(p->vendor == w.vendor);
    CHECK(p->family == "cuda");
    CHECK(p->arch == w.arch);
    CHECK(p->isa == w.isa);
    REQUIRE(p->matrix);
    REQUIRE(p->sm_count);
    CHECK(p->sm_count->value == w.sms);
    for (const char* k : {"fp32", "fp16"}) CHECK(p->peak_tflops.count(k) == 1);
    for (const auto& [k, v] : p->peak_tflops) CHECK(!v.source.empty());
    CHECK(p->bandwidth_gbs);
    CHECK(p->memory_gib);
  }
  // Per GCD: half of the package's datasheet figures.
  CHECK(db.find("MI250X-GCD")->peak_tflops.at("fp16").value == Approx(383.0 / 2));
  CHECK(db.find("MI250X-GCD")->peak_tflops.at("fp16").kind == "derived");
  CHECK(db.find("MI250-GCD")->bandwidth_gbs->value == Approx(3276.8 / 2));
  CHECK(db.find("MI300X")->peak_tflops.at("tf32").value == Approx(653.7));
  CHECK(db.find("MI100")->peak_tflops.at("bf16").value == Approx(92.3));
  CHECK(db.find("T4")->peak_tflops.count("tf32") == 0);
  // Ascend parts do not state their matrix precisions: unknown, not none.
  CHECK_FALSE(db.find("Ascend910B2")->matrix);
  CHECK(db.find("Ascend910B2")->arch.empty());
}

TEST_CASE("arch, isa and matrix are checked when a hardware file loads") {
  auto refused = [](const std::string& yaml) {
    test::TempDir dir;
    dir.write("gpu.yaml", yaml);
    try {
      HardwareDb::load(dir.path());
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  std::string head = "name: X\nvendor: nvidia\nfamily: cuda\n";
  CHECK(refused(head + "arch: ampere\nisa: sm_80\nmatrix: [fp16, bf16, tf32]\n") == "loaded");
  CHECK(refused(head + "matrix: []\n") == "loaded");
  std::string e = refused(head + "matrix: [fp16, fp64]\n");
  CHECK_THAT(e,
             Catch::Contains("gpu.yaml") && Catch::Contains("matrix") && Catch::Contains("'fp64'"));
  e = refused(head + "matrix: fp16\n");
  CHECK_THAT(e, Catch::Contains("gpu.yaml: matrix") && Catch::Contains("list"));
  e = refused(head + "arch: hoper\n");
  CHECK_THAT(e, Catch::Contains("gpu.yaml: arch") && Catch::Contains("'hoper'"));
  e = refused(head + "isa: 90\n");
  CHECK_THAT(e, Catch::Contains("gpu.yaml: isa"));
  e = refused(head + "isa: gfx90a\n");
  CHECK_THAT(e, Catch::Contains("gpu.yaml: isa") && Catch::Contains("nvidia"));
  e = refused("name: X\nvendor: intel\n");
  CHECK_THAT(e, Catch::Contains("gpu.yaml: vendor") && Catch::Contains("'intel'"));
  e = refused(head + "arch: [volta]\n");
  CHECK_THAT(e, Catch::Contains("gpu.yaml: arch"));

  test::TempDir dir;
  dir.write("a.yaml", head + "arch: ampere\n");
  HardwareDb db = HardwareDb::load(dir.path());
  CHECK_FALSE(db.find("X")->matrix);  // no matrix key: unknown
}

TEST_CASE("NVIDIA and AMD device names match their parts") {
  auto part = [](const std::string& name, std::optional<int> cus = {},
                 std::optional<double> gib = {}, std::optional<int> major = {},
                 std::optional<int> minor = {}) {
    RunDevice d;
    d.name = name;
    d.sm_count = cus;
    d.memory_gib = gib;
    d.compute_major = major;
    d.compute_minor = minor;
    return shipped().match(d);
  };
  CHECK(part("Tesla T4", 40, 14.75).part->name == "T4");
  CHECK(part("NVIDIA T4").part->name == "T4");
  CHECK(part("Tesla V100-SXM2-16GB", 80, 15.8).part->name == "V100-SXM2");
  CHECK(part("NVIDIA A100-SXM4-40GB", 108, 39.4).part->name == "A100-SXM4-40GB");
  CHECK_FALSE(part("NVIDIA GeForce RTX 4090", 128, 24).part);
  CHECK_FALSE(part("NVIDIA RTX A6000").part);  // 't4' only as a word

  // ROCm names both MI250 variants alike: the CU count picks the GCD.
  MatchResult x = part("AMD Instinct MI250X / MI250", 110, 63.98, 9, 0);
  CHECK(x.part->name == "MI250X-GCD");
  CHECK(x.how == "pattern");
  CHECK(x.candidates.empty());
  CHECK(part("AMD Instinct MI250X / MI250", 104, 63.98, 9, 0).part->name == "MI250-GCD");
  MatchResult both = part("AMD Instinct MI250X / MI250");  // no CU count: both listed
  CHECK(both.part->name == "MI250-GCD");
  CHECK(both.candidates.size() == 2);
  CHECK(part("AMD Instinct MI250X", 110).part->name == "MI250X-GCD");
  CHECK(part("AMD Instinct MI210", 104, 63.98).part->name == "MI210");
  CHECK(part("AMD Instinct MI100", 120, 31.98).part->name == "MI100");
  CHECK(part("AMD Instinct MI300X", 304, 191.98, 9, 4).part->name == "MI300X");
  CHECK(part("AMD Instinct MI300X").how == "alias");

  // A generic name: vendor, CU count and memory. An MI210 and one MI250 GCD fit equally.
  MatchResult generic = part("AMD Radeon Graphics", 104, 64, 9, 0);
  REQUIRE(generic.part);
  CHECK(generic.how == "vendor");
  CHECK(generic.part->name == "MI210");  // first by file name: deterministic
  REQUIRE(generic.candidates.size() == 2);
  CHECK(generic.candidates[0]->name == "MI210");
  CHECK(generic.candidates[1]->name == "MI250-GCD");
  CHECK(part("AMD Radeon Graphics", 304, 192, 9, 4).part->name == "MI300X");
  CHECK(part("AMD Radeon Graphics", 304, 192e9 / kGiB).part->name == "MI300X");  // 192 GB
  CHECK(part("AMD Radeon Graphics", 110, 64).part->name == "MI250X-GCD");
  CHECK(part("AMD Radeon Graphics", 120, 32).part->name == "MI100");
  CHECK_FALSE(part("AMD Radeon Graphics", 304, 256).part);       // an MI325X is not an MI300X
  CHECK_FALSE(part("AMD Radeon Graphics", 104, 64, 9, 4).part);  // gfx94x is no CDNA2 part
  CHECK_FALSE(part("AMD Radeon Graphics", 96, 48).part);         // a Radeon Pro card
  CHECK_FALSE(part("AMD Radeon Graphics").part);                 // no CU count: nothing to go on
  CHECK_FALSE(part("AMD Instinct MI325X", 304, 256).part);       // names a model we lack
  CHECK(part("gfx90a", 110).part->name == "MI250X-GCD");         // a gfx id is AMD
  RunDevice unnamed;                                             // no name, but the run says AMD
  unnamed.vendor = "AMD";
  unnamed.sm_count = 304;
  CHECK(shipped().match(unnamed).part->name == "MI300X");
  RunDevice arch;  // gcnArchName picks among parts with the same CUs
  arch.name = "AMD Radeon Graphics";
  arch.sm_count = 104;
  arch.isa = "gfx908";
  CHECK_FALSE(shipped().match(arch).part);

  CHECK(normalize_name("AMD Instinct MI300X") == "mi300x");
}

TEST_CASE("device vendors and NVIDIA compute capabilities") {
  auto vendor = [](const std::string& name, const std::string& v = "") {
    RunDevice d;
    d.name = name;
    d.vendor = v;
    return device_vendor(d);
  };
  CHECK(vendor("Tesla T4") == "nvidia");
  CHECK(vendor("NVIDIA GeForce RTX 3090") == "nvidia");
  CHECK(vendor("AMD Radeon Graphics") == "amd");
  CHECK(vendor("AMD Instinct MI250X / MI250") == "amd");
  CHECK(vendor("gfx942") == "amd");
  CHECK(vendor("Ascend910B2") == "huawei");
  CHECK(vendor("", "Huawei") == "huawei");
  CHECK(vendor("Some GPU", "AMD") == "amd");
  CHECK(vendor("Some GPU").empty());

  CHECK(cuda_arch(7, 0).arch == "volta");
  CHECK(cuda_arch(7, 0).isa == "sm_70");
  CHECK(*cuda_arch(7, 0).matrix == std::vector<std::string>{"fp16"});
  CHECK(cuda_arch(7, 5).arch == "turing");
  CHECK(cuda_arch(8, 6).arch == "ampere");
  CHECK(cuda_arch(8, 9).arch == "ada");
  CHECK(cuda_arch(9, 0).arch == "hopper");
  CHECK(cuda_arch(9, 0).isa == "sm_90");
  CHECK(cuda_arch(6, 0).matrix->empty());  // Pascal: no Tensor Cores
  CHECK(cuda_arch(5, 2).arch.empty());
  CHECK_FALSE(cuda_arch(5, 2).matrix);
}

TEST_CASE("hardware_specs: vendor, arch, isa and what the matrix units run") {
  HardwareSpec v100 = spec({"Tesla V100-SXM2-32GB", "NVIDIA", "7.0", "", 80, 34089730048});
  CHECK(v100.part == "V100-SXM2");
  CHECK(v100.vendor == "nvidia");
  CHECK(v100.arch == "volta");
  CHECK(v100.isa == "sm_70");
  CHECK(matrix(v100) == "yes no no no");

  HardwareSpec t4 = spec({"Tesla T4", "NVIDIA", "7.5", "", 40, 15843721216});
  CHECK(t4.part == "T4");
  CHECK(t4.arch == "turing");
  CHECK(matrix(t4) == "yes no no no");

  HardwareSpec a100 = spec({"NVIDIA A100-SXM4-80GB", "NVIDIA", "8.0", "", 108, 85031714816});
  CHECK(a100.part == "A100-SXM4-80GB");
  CHECK(a100.arch == "ampere");
  CHECK(matrix(a100) == "yes yes yes no");

  HardwareSpec h100 = spec({"NVIDIA H100 80GB HBM3", "NVIDIA", "9.0", "", 132, 85029158912});
  CHECK(h100.arch == "hopper");
  CHECK(matrix(h100) == "yes yes yes yes");

  HardwareSpec mi250 = spec({"AMD Instinct MI250X / MI250", "AMD", "9.0", "", 104, 64 * kGiB});
  CHECK(mi250.part == "MI250-GCD");
  CHECK(mi250.vendor == "amd");
  CHECK(mi250.arch == "cdna2");
  CHECK(mi250.isa == "gfx90a");
  CHECK(mi250.compute_major == 9);  // stored as reported, documented as a gfx digit
  CHECK(matrix(mi250) == "yes yes no no");

  HardwareSpec mi250x = spec({"AMD Instinct MI250X / MI250", "AMD", "9.0", "", 110, 64 * kGiB});
  CHECK(mi250x.part == "MI250X-GCD");
  CHECK(mi250x.match == "pattern");
  CHECK(mi250x.peak_for("fp16") == Approx(191.5e12));
  CHECK(mi250x.peak_source == "table");  // 110 CUs: no rescaling

  HardwareSpec generic = spec({"AMD Radeon Graphics", "AMD", "9.0", "", 104, 64 * kGiB});
  CHECK(generic.part == "MI210");
  CHECK(generic.match == "vendor");
  CHECK(generic.candidates == "MI210,MI250-GCD");
  CHECK(generic.arch == "cdna2");
  CHECK(matrix(generic) == "yes yes no no");
  CHECK(generic.note.find("vendor") != std::string::npos);

  HardwareSpec mi300 = spec({"AMD Instinct MI300X", "AMD", "9.4", "", 304, 192 * kGiB});
  CHECK(mi300.part == "MI300X");
  CHECK(mi300.arch == "cdna3");
  CHECK(mi300.isa == "gfx942");
  CHECK(matrix(mi300) == "yes yes yes yes");
  HardwareSpec mi300_cus = spec({"AMD Radeon Graphics", "AMD", "9.4", "", 304, 205822885888});
  CHECK(mi300_cus.part == "MI300X");
  CHECK(mi300_cus.match == "vendor");
  CHECK(mi300_cus.candidates.empty());
  CHECK(matrix(mi300_cus) == "yes yes yes yes");

  // gcnArchName in deviceProperties names the gfx id: an MI100 is not an MI210 lookalike.
  HardwareSpec gcn = spec(
      {"AMD Radeon Graphics", "AMD", "9.0",
       R"({"name":"AMD Radeon Graphics","gcnArchName":"gfx90a:sramecc+:xnack-"})", 104, 64 * kGiB});
  CHECK(gcn.part == "MI210");

  // No part and no compute capability: everything unknown.
  HardwareSpec none = spec({"Mystery Accelerator", "", "", "", 64, 16 * kGiB});
  CHECK(none.part.empty());
  CHECK(none.vendor == "unknown");
  CHECK(none.arch == "unknown");
  CHECK(none.isa == "unknown");
  CHECK(matrix(none) == "unknown unknown unknown unknown");

  // An NVIDIA device the table lacks: arch and matrix from its compute capability, said so.
  HardwareSpec rtx = spec({"NVIDIA GeForce RTX 3090", "NVIDIA", "8.6", "", 82, 24 * kGiB});
  CHECK(rtx.part.empty());
  CHECK(rtx.arch == "ampere");
  CHECK(rtx.isa == "sm_86");
  CHECK(matrix(rtx) == "yes yes yes no");
  CHECK(rtx.note.find("compute capability 8.6") != std::string::npos);
  CHECK(rtx.note.find("not in the hardware database") != std::string::npos);
  HardwareSpec ada = spec({"NVIDIA L4", "NVIDIA", "8.9", "", 58, 22 * kGiB});
  CHECK(ada.arch == "ada");
  CHECK(matrix(ada) == "yes yes yes yes");
  HardwareSpec turing = spec({"NVIDIA GeForce RTX 2080 Ti", "", "7.5", "", 68, 11 * kGiB});
  CHECK(turing.vendor == "nvidia");
  CHECK(turing.arch == "turing");
  CHECK(matrix(turing) == "yes no no no");
  HardwareSpec volta = spec({"NVIDIA TITAN V", "NVIDIA", "7.0", "", 80, 12 * kGiB});
  CHECK(matrix(volta) == "yes no no no");

  // AMD reports 9.0 / 9.4 where NVIDIA reports 9.0 for Hopper: never hopper on AMD.
  for (const char* cc : {"9.0", "9.4"}) {
    INFO(cc);
    for (const Device& d : {Device{"AMD Radeon Graphics", "AMD", cc, "", 60, 16 * kGiB},
                            Device{"AMD Radeon Graphics", "", cc, "", 60, 16 * kGiB},
                            Device{"AMD Instinct MI50", "AMD", cc, "", 60, 32 * kGiB},
                            Device{"AMD Instinct MI250X / MI250", "AMD", cc, "", 110, 64 * kGiB},
                            Device{"AMD Radeon Graphics", "AMD", cc, "", 304, 192 * kGiB}}) {
      INFO(d.name << " " << *d.sms);
      HardwareSpec s = spec(d);
      CHECK(s.vendor == "amd");
      CHECK(s.arch != "hopper");
      CHECK(s.isa.rfind("sm_", 0) == std::string::npos);
      if (s.part.empty()) {
        CHECK(s.arch == "unknown");
        CHECK(matrix(s) == "unknown unknown unknown unknown");
        CHECK(s.note.find("gfx id") != std::string::npos);
      }
    }
  }
  // A run the collector marked rocm, whose device name is empty: still AMD, still not hopper.
  {
    test::AnalysisStore db;
    int64_t run = add_run(db, {"", "", "9.0", "", 104, 64 * kGiB});
    db.prepare("UPDATE runs SET device = 'rocm' WHERE id = ?1").bind(1, run).run();
    HardwareSpec s = compute_hardware_spec(db, run, shipped());
    CHECK(s.vendor == "amd");
    CHECK(s.arch != "hopper");
  }
  // An unknown vendor with compute capability 9.0 is not taken for Hopper either.
  HardwareSpec unknown9 = spec({"", "", "9.0", "", 104, 64 * kGiB});
  CHECK(unknown9.arch == "unknown");
  CHECK(matrix(unknown9) == "unknown unknown unknown unknown");
}

TEST_CASE("the hardware_spec fact carries vendor, arch, isa and the matrix slots") {
  std::vector<store::FactType> types;
  analyzers::declare_roofline_facts(types);
  const store::FactType* hw = nullptr;
  for (const auto& t : types)
    if (t.name == "hardware_spec") hw = &t;
  REQUIRE(hw);
  for (const char* s :
       {"vendor", "arch", "isa", "matrix_fp16", "matrix_bf16", "matrix_tf32", "matrix_fp8"}) {
    INFO(s);
    REQUIRE(hw->slot(s));
    CHECK(hw->slot(s)->type == store::SlotType::Symbol);
  }
  CHECK(hw->slot("compute_major")->doc.find("gfx") != std::string::npos);

  test::AnalysisStore db;
  auto row = [&](const Device& d) {
    int64_t run = add_run(db, d);
    compute_hardware_spec(db, run, shipped());
    auto st = db.prepare(hw->query);
    st.bind(1, run);
    REQUIRE(st.step());
    std::map<std::string, std::string> out;
    for (int c = 0; c < st.column_count(); ++c)
      out[st.column_name(c)] = st.is_null(c) ? "NULL" : st.text(c);
    return out;
  };
  auto v100 = row({"Tesla V100-SXM2-32GB", "NVIDIA", "7.0", "", 80, 32 * kGiB});
  CHECK(v100["vendor"] == "nvidia");
  CHECK(v100["arch"] == "volta");
  CHECK(v100["isa"] == "sm_70");
  CHECK(v100["matrix_fp16"] == "yes");
  CHECK(v100["matrix_bf16"] == "no");
  CHECK(v100["matrix_tf32"] == "no");
  CHECK(v100["matrix_fp8"] == "no");
  auto mi300 = row({"AMD Instinct MI300X", "AMD", "9.4", "", 304, 192 * kGiB});
  CHECK(mi300["vendor"] == "amd");
  CHECK(mi300["arch"] == "cdna3");
  CHECK(mi300["matrix_tf32"] == "yes");
  CHECK(mi300["compute_major"] == "9");
  auto none = row({"Mystery Accelerator", "", "", "", {}, {}});
  CHECK(none["matrix_fp16"] == "unknown");
  CHECK(none["arch"] == "unknown");
}
