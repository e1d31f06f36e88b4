// FLOP/byte model, roofline classification, the analyzer over synthetic runs, activation chains.
#include "analyzer_resources.h"
#include "analyzers/roofline/activation.h"
#include "analyzers/roofline/flop_model.h"
#include "analyzers/roofline/roofline.h"
#include "store/run_writer.h"
#include "test_support.h"

using namespace perfsage;
using namespace perfsage::analyzers::roofline;

TEST_CASE("shapes parse from Ascend and Kineto spellings, malformed text gives nothing") {
  auto a = parse_shapes("\"4096,12288;4608,12288\"");
  REQUIRE(a.size() == 2);
  CHECK(a[1] == Shape{4608, 12288});
  auto k = parse_shapes("[[32, 9216], [4096, 9216], [], [[2,3],[4]]]");
  REQUIRE(k.size() == 4);
  CHECK(k[0] == Shape{32, 9216});
  CHECK(k[2].empty());
  CHECK(parse_shapes("4,x").empty());
  CHECK(parse_shapes("[[-1, 3]]").empty());
  CHECK(parse_shapes("").empty());
  CHECK(parse_dtypes("FLOAT16;FLOAT") == std::vector<std::string>{"FLOAT16", "FLOAT"});
  CHECK(parse_dtypes("[\"float\",\"Scalar\"]") == std::vector<std::string>{"float", "Scalar"});
  CHECK(dtype_bytes("c10::BFloat16") == 2);
  CHECK(precision_of("FLOAT16") == "fp16");
  CHECK(precision_of("float") == "fp32");
}

TEST_CASE("FLOP and byte estimates follow the operator's shapes") {
  // Ascend MatMul with transposed B: 2 * 4096 * 4608 * 12288 FLOPs (the counter says 4.73e11).
  auto mm = estimate("MatMul", parse_shapes("4096,12288;4608,12288"), {"FLOAT16", "FLOAT16"},
                     parse_shapes("4096,4608"), {"FLOAT16"});
  REQUIRE(mm.ok);
  CHECK(mm.flops == Approx(2.0 * 4096 * 4608 * 12288));
  CHECK(mm.bytes == Approx(2.0 * (4096 * 12288 + 4608 * 12288 + 4096 * 4608)));
  auto bmm = estimate("BatchMatMul", parse_shapes("12,1024,512;12,512,1024"), {"FLOAT16"}, {}, {});
  CHECK(bmm.flops == Approx(2.0 * 12 * 1024 * 1024 * 512));
  // aten::addmm(bias, mat1, mat2), Kineto spelling, FP32: output inferred as M x N.
  auto addmm =
      estimate("aten::addmm", parse_shapes("[[4096], [32, 9216], [9216, 4096], [], []]"),
               parse_dtypes("[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]"), {}, {});
  REQUIRE(addmm.ok);
  CHECK(addmm.flops == Approx(2.0 * 32 * 4096 * 9216));
  CHECK(addmm.bytes == Approx(4.0 * (4096 + 32 * 9216 + 9216 * 4096 + 32 * 4096)));
  auto lin =
      estimate("aten::linear", parse_shapes("[[8,128,512],[1024,512],[1024]]"), {"float"}, {}, {});
  CHECK(lin.flops == Approx(2.0 * 8 * 128 * 1024 * 512));
  auto add = estimate("aten::add", parse_shapes("[[1000],[1000]]"), {"float", "float"}, {}, {});
  CHECK(add.flops == Approx(1000));
  CHECK(add.bytes == Approx(12000));
  // Convolution needs the output shape (stride and padding are not in Input Dims).
  auto conv = estimate("aten::cudnn_convolution", parse_shapes("[[8,3,224,224],[64,3,11,11]]"),
                       {"float"}, {}, {});
  CHECK_FALSE(conv.ok);
  auto conv2 = estimate("Conv2D", parse_shapes("8,3,224,224;64,3,11,11"), {"FLOAT16"},
                        parse_shapes("8,64,55,55"), {"FLOAT16"});
  CHECK(conv2.flops == Approx(2.0 * 8 * 64 * 55 * 55 * 3 * 11 * 11));
  CHECK_FALSE(estimate("MatMul", parse_shapes("4,5;6,7"), {"FLOAT16"}, {}, {}).ok);
  CHECK_FALSE(estimate("Unique", parse_shapes("4,5"), {"INT32"}, {}, {}).ok);
  CHECK_FALSE(estimate("Add", parse_shapes("4,5"), {"STRANGE"}, {}, {}).ok);
}

TEST_CASE("roofline classification uses the 80 % utilisation threshold and the ridge") {
  // Peak 100 FLOP/s, 10 B/s: ridge 10 FLOP/B.
  auto mem = classify({1000, 1000, 100, 100, 10});  // AI 1, attainable 10, achieved 10
  CHECK(mem.bound == "memory");
  CHECK(mem.ridge == Approx(10));
  auto comp = classify({9000, 100, 100, 100, 10});  // AI 90, attainable 100, achieved 90
  CHECK(comp.bound == "compute");
  auto lat = classify({5000, 100, 100, 100, 10});  // achieved 50 of 100
  CHECK(lat.bound == "latency");
  CHECK(lat.utilisation == Approx(0.5));
}

namespace {
store::OpTask op(const std::string& name, const std::string& type, const std::string& core,
                 int64_t start_us, int64_t dur_us) {
  store::OpTask t;
  t.name = name;
  t.type = type;
  t.core_type = core;
  t.start_ns = start_us * 1000;
  t.dur_ns = dur_us * 1000;
  t.stream_id = 1;
  return t;
}
std::string one(store::Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  REQUIRE(st.step());
  return st.is_null(0) ? "NULL" : st.text(0);
}
}  // namespace

TEST_CASE("Ascend ops with FLOP and byte counters get a bound and a cause") {
  store::Database db(":memory:");
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    store::Hardware hw;
    hw.name = "Ascend910B2";
    w.add(hw);
    // 1 ms MatMul at 300 TFLOP/s with intensity 1000: compute bound (peak 353.9 TFLOP/s).
    auto mm = op("MatMul1", "MatMul", "AI_CORE", 0, 1000);
    mm.cube_fops = 300e9;
    mm.read_bytes = 200e6;
    mm.write_bytes = 100e6;
    mm.mac_ratio = 0.9;
    w.add(mm);
    // Add moving 1 GB in 1 ms = 1000 GB/s of 1382: latency bound, MTE2 busy -> memory caused.
    auto add = op("Add1", "Add", "AI_VECTOR_CORE", 2000, 1000);
    add.vector_fops = 0.25e9;
    add.read_bytes = 0.66e9;
    add.write_bytes = 0.33e9;
    add.mte2_ratio = 0.95;
    add.vec_ratio = 0.2;
    w.add(add);
    // Mul with all pipes idle: pipeline caused.
    auto mul = op("Mul1", "Mul", "AI_VECTOR_CORE", 4000, 1000);
    mul.vector_fops = 1e6;
    mul.read_bytes = 1e6;
    mul.write_bytes = 1e6;
    mul.vec_ratio = 0.1;
    mul.mte2_ratio = 0.2;
    w.add(mul);
    w.add(op("hcom_allReduce_1", "hcom_allReduce_", "HCCL", 6000, 5000));
    w.commit();
  }
  analyze_roofline(db, run, test::shipped_hardware());
  CHECK(one(db, "SELECT bound FROM roofline_ops WHERE name='MatMul1'") == "compute");
  CHECK(one(db, "SELECT precision FROM roofline_ops WHERE name='MatMul1'") == "fp16");
  CHECK(one(db,
            "SELECT bound || ' ' || cause || ' ' || dominant_pipe FROM roofline_ops WHERE "
            "name='Add1'") == "latency memory mte2");
  CHECK(one(db, "SELECT cause FROM roofline_ops WHERE name='Mul1'") == "pipeline");
  CHECK(one(db, "SELECT count(*) FROM roofline_ops WHERE core_type='HCCL'") == "0");
  CHECK(std::stod(one(db, "SELECT intensity FROM roofline_ops WHERE name='MatMul1'")) ==
        Approx(1000));
  CHECK(std::stod(one(db, "SELECT roof_us FROM roofline_ops WHERE name='MatMul1'")) ==
        Approx(300e9 / 353.9e12 * 1e6));
  // Idempotent.
  analyze_roofline(db, run, test::shipped_hardware());
  CHECK(one(db, "SELECT count(*) FROM roofline_ops") == "3");
}

TEST_CASE("FLOP counters without byte counters give insufficient_data, not a guess") {
  store::Database db(":memory:");
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    auto mm = op("MatMul91", "MatMul", "AI_CORE", 0, 1478);
    mm.cube_fops = 473250242560.0;
    mm.block_dim = 24;
    mm.input_shapes = "4096,12288;4608,12288";
    mm.input_dtypes = "FLOAT16;FLOAT16";
    mm.output_shapes = "4096,4608";
    mm.output_dtypes = "FLOAT16";
    w.add(mm);
    w.commit();
  }
  analyze_roofline(db, run, test::shipped_hardware());
  CHECK(one(db, "SELECT bound FROM roofline_ops") == "insufficient_data");
  CHECK(one(db, "SELECT reason FROM roofline_ops").find("byte counters") != std::string::npos);
  CHECK(one(db, "SELECT match FROM hardware_specs") == "block_dim");
}

TEST_CASE("GPU ops are placed on the roofline from Input Dims joined to their kernels") {
  store::Database db(":memory:");
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    store::Hardware hw;
    hw.name = "NVIDIA A100-PG509-200";
    hw.sm_count = 108;
    hw.memory_bytes = 42297524224;
    hw.compute_capability = "8.0";
    w.add(hw);
    store::HostEvent h;
    h.kind = "cpu_op";
    h.name = "aten::addmm";
    h.external_id = 7;
    h.input_dims = "[[4096],[32,9216],[9216,4096],[],[]]";
    h.input_types = "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]";
    h.dur_ns = 50000;
    w.add(h);
    store::DeviceEvent k;
    k.kind = "kernel";
    k.name = "ampere_sgemm_128x64_tn";
    k.external_id = 7;
    k.dur_ns = 400000;  // 2.4 GFLOP in 400 us = 6 TFLOP/s of 19.5
    w.add(k);
    store::HostEvent noshape = h;
    noshape.name = "aten::relu";
    noshape.external_id = 8;
    noshape.input_dims.reset();
    noshape.input_types.reset();
    w.add(noshape);
    k.external_id = 8;
    k.name = "relu_kernel";
    k.dur_ns = 10000;
    w.add(k);
    w.commit();
  }
  analyze_roofline(db, run, test::shipped_hardware());
  CHECK(one(db, "SELECT part FROM hardware_specs") == "A100-SXM4-40GB");
  CHECK(one(db,
            "SELECT scope || ' ' || precision || ' ' || bound FROM roofline_ops WHERE "
            "name='aten::addmm'") == "gpu_op fp32 latency");
  CHECK(std::stod(one(db, "SELECT utilisation FROM roofline_ops WHERE name='aten::addmm'")) ==
        Approx(2.0 * 32 * 4096 * 9216 / 400e-6 / 19.5e12).epsilon(0.01));
  CHECK(one(db, "SELECT reason FROM roofline_ops WHERE name='aten::relu'").find("record_shapes") !=
        std::string::npos);
}

TEST_CASE("activation chains are found in op sequences and normalised types") {
  CHECK(normalize_op_type("aten::mul_") == "mul");
  CHECK(normalize_op_type("SoftplusV2") == "softplus");
  CHECK(normalize_op_type("Muls") == "mul");
  const auto& mish = activation_patterns().front();
  REQUIRE(mish.name == "mish");
  std::vector<std::string> seq = {"conv", "softplus", "tanh",     "mul",  "softplus",
                                  "tanh", "add",      "softplus", "tanh", "mul"};
  CHECK(find_chains(seq, mish) == std::vector<size_t>{1, 7});

  store::Database db(":memory:");
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    int64_t t = 0;
    for (int i = 0; i < 3; ++i) {
      w.add(op("Conv2D" + std::to_string(i), "Conv2D", "AI_CORE", t += 100, 50));
      w.add(op("Softplus" + std::to_string(i), "Softplus", "AI_VECTOR_CORE", t += 100, 30));
      w.add(op("Tanh" + std::to_string(i), "Tanh", "AI_VECTOR_CORE", t += 100, 20));
      w.add(op("Mul" + std::to_string(i), "Mul", "AI_VECTOR_CORE", t += 100, 10));
    }
    w.commit();
  }
  compute_activation_patterns(db, run);
  CHECK(one(db, "SELECT pattern || ' ' || source || ' ' || instances FROM activation_patterns") ==
        "mish ops 3");
  CHECK(std::stod(one(db, "SELECT total_us FROM activation_patterns")) == Approx(180));
  CHECK(std::stod(one(db, "SELECT share FROM activation_patterns")) == Approx(180.0 / 330));
  CHECK(one(db, "SELECT example FROM activation_patterns") == "Softplus0 -> Tanh0 -> Mul0");
}
