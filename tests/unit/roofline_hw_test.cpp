// Hardware database: every shipped part loads with sourced numbers, and run names match.
#include "analyzer_resources.h"
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
const Part* match(const std::string& name, std::optional<double> mem_gib = {},
                  std::optional<int> cores = {}, std::optional<double> freq = {}) {
  RunDevice d;
  d.name = name;
  d.memory_gib = mem_gib;
  d.cube_cores = cores;
  d.freq_mhz = freq;
  return shipped().match(d).part;
}
}  // namespace

TEST_CASE("the shipped hardware database covers the required parts with sources") {
  const auto& db = shipped();
  for (const char* name : {"Ascend910", "Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4",
                           "Ascend310", "Ascend310P3", "V100-SXM2", "A100-SXM4-40GB",
                           "A100-SXM4-80GB", "H100-SXM5-80GB", "H200-SXM-141GB"}) {
    INFO(name);
    const Part* p = db.find(name);
    REQUIRE(p);
    CHECK(p->peak_tflops.count("fp16") == 1);
    for (const auto& [k, v] : p->peak_tflops) CHECK(!v.source.empty());
  }
  const Part* h200 = db.find("H200-SXM-141GB");
  CHECK(h200->bandwidth_gbs->value == Approx(4800));
  CHECK(h200->bandwidth_gbs->kind == "published");
  CHECK(h200->peak_tflops.at("fp16").value ==
        Approx(db.find("H100-SXM5-80GB")->peak_tflops.at("fp16").value));
  CHECK(h200->peak_tflops.at("fp16").kind == "derived");
  CHECK(db.find("Ascend910B2")->bandwidth_gbs->kind == "derived");
}

TEST_CASE("run device names match hardware parts") {
  CHECK(match("NVIDIA A100-PG509-200", 39.4)->name == "A100-SXM4-40GB");
  CHECK(match("NVIDIA A100-SXM4-80GB", 79.2)->name == "A100-SXM4-80GB");
  CHECK(match("NVIDIA A100 80GB PCIe", 79.2)->name == "A100-SXM4-80GB");
  CHECK(match("NVIDIA A100-SXM4-40GB")->name == "A100-SXM4-40GB");
  CHECK(match("NVIDIA H100 80GB HBM3", 79.1)->name == "H100-SXM5-80GB");
  CHECK(match("NVIDIA H100 PCIe")->name == "H100-PCIe-80GB");
  CHECK(match("NVIDIA H200")->name == "H200-SXM-141GB");
  CHECK(match("Tesla V100-SXM2-32GB")->name == "V100-SXM2");
  CHECK(match("Ascend910B3")->name == "Ascend910B3");
  // Generic family names resolve by the run's cores and clock.
  CHECK(match("Ascend910B", {}, 24, 1800)->name == "Ascend910B2");
  CHECK(match("Ascend910B", {}, 24, 1850)->name == "Ascend910B1");
  CHECK(match("Ascend910B", {}, 20, 1500)->name == "Ascend910B4");
  CHECK(match("Ascend910B", {}, 20, 1800)->name == "Ascend910B3");
  CHECK(match("NVIDIA GeForce RTX 4090") == nullptr);
  CHECK(match("") == nullptr);
  CHECK(normalize_name("NVIDIA H100 80GB HBM3") == normalize_name("H100-80GB_HBM3"));
}

TEST_CASE("a malformed hardware file names the file and key") {
  test::TempDir dir;
  dir.write("bad.yaml", "name: X\npeak_tflops:\n  fp16: {value: 1}\n");
  REQUIRE_THROWS_WITH(HardwareDb::load(dir.path()),
                      Catch::Contains("bad.yaml") && Catch::Contains("peak_tflops.fp16"));
  test::TempDir dir2;
  dir2.write("neg.yaml", "name: X\nfreq_mhz: {value: -3, kind: published, source: s}\n");
  REQUIRE_THROWS_WITH(HardwareDb::load(dir2.path()), Catch::Contains("positive"));
  test::TempDir dir3;
  dir3.write("y.yaml", "name: [unclosed\n");
  REQUIRE_THROWS_WITH(HardwareDb::load(dir3.path()), Catch::Contains("y.yaml"));
}

TEST_CASE("run facts override the table and block dims stand in for a missing chip name") {
  test::AnalysisStore db;
  int64_t named, inferred, none;
  {
    store::RunWriter w(db, {"j", {}, "fp1", "now"});
    named = w.run_id();
    store::Hardware hw;
    hw.name = "Ascend910B";
    hw.ai_core_num = 20;
    hw.freq_mhz = 1000;  // throttled clock
    w.add(hw);
    w.commit();
  }
  {
    store::RunWriter w(db, {"j", {}, "fp2", "now"});
    inferred = w.run_id();
    store::OpTask t;
    t.name = "MatMul1";
    t.type = "MatMul";
    t.core_type = "AI_CORE";
    t.dur_ns = 1000;
    t.block_dim = 24;
    w.add(t);
    t.core_type = "AI_VECTOR_CORE";
    t.block_dim = 52;
    w.add(t);
    w.commit();
  }
  {
    store::RunWriter w(db, {"j", {}, "fp3", "now"});
    none = w.run_id();
    w.commit();
  }
  HardwareSpec a = compute_hardware_spec(db, named, shipped());
  CHECK(a.part == "Ascend910B4");  // 20 cores; nearest clock among B3 (1800) and B4 (1500)
  CHECK(a.cores_source == "run");
  CHECK(a.freq_source == "run");
  CHECK(a.peak_source == "run");
  CHECK(a.peak_for("fp16") == Approx(20 * 8192 * 1000e6));

  HardwareSpec b = compute_hardware_spec(db, inferred, shipped());
  CHECK(b.match == "block_dim");
  CHECK(b.cube_cores == 24);
  CHECK(b.cores_source == "inferred");
  CHECK(b.candidates == "Ascend910B2,Ascend910B1");
  CHECK(b.note.find("inferred") != std::string::npos);

  HardwareSpec c = compute_hardware_spec(db, none, shipped());
  CHECK(c.part.empty());
  CHECK(c.peak.empty());
  CHECK(c.bw_source == "unknown");
  auto st = db.prepare("SELECT count(*) FROM hardware_specs");
  REQUIRE(st.step());
  CHECK(st.int64(0) == 3);
}
