// FLOP/byte model, roofline classification, the analyzer over synthetic runs, activation chains.
#include "analyzer_resources.h"
#include "analyzers/core/fact_types.h"
#include "analyzers/roofline/activation.h"
#include "analyzers/roofline/flop_model.h"
#include "analyzers/roofline/roofline.h"
#include "store/run_writer.h"
#include "test_support.h"

using namespace perfsage;
using namespace perfsage::analyzers::roofline;

// The activation fact's share of its first fact (of the run's device time, summed over ranks).
inline double activation_share(store::Database& db, int64_t run) {
  for (const auto& t : analyzers::fact_types()) {
    if (t.name != "activation") continue;
    auto st = db.prepare(t.query);
    st.bind(1, run);
    REQUIRE(st.step());
    for (int c = 0; c < st.column_count(); ++c)
      if (st.column_name(c) == "share") return st.real(c);
  }
  FAIL("no activation fact type with a share");
  return 0;
}

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
  auto bmm = estimate("BatchMatMul", parse_shapes("12,1024,512;12,512,1024"), {"FLOAT16"},
                      parse_shapes("12,1024,1024"), {"FLOAT16"});
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
  // Without the output shape both "no transpose" (M = N = 1024, K = 512) and "both
  // transposed" (M = N = 512, K = 1024) fit: no model is sure, so no point.
  auto unsure =
      estimate("BatchMatMul", parse_shapes("12,1024,512;12,512,1024"), {"FLOAT16"}, {}, {});
  CHECK_FALSE(unsure.ok);
  CHECK_THAT(unsure.why, Catch::StartsWith("no FLOP model"));
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
  test::AnalysisStore db;
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
    // 2.85 PFLOP/s on a 353.9 TFLOP/s chip: 805 % of the roof, a data problem, not a point.
    auto fa = op("FlashAttentionScore_1", "FlashAttentionScore", "MIX_AIC", 12000, 100);
    fa.cube_fops = 285e9;
    fa.read_bytes = 100e6;
    fa.write_bytes = 10e6;
    w.add(fa);
    w.commit();
  }
  analyze_roofline(db, run, test::shipped_hardware());
  CHECK(one(db, "SELECT bound FROM roofline_ops WHERE name='FlashAttentionScore_1'") == "invalid");
  CHECK_THAT(one(db, "SELECT reason FROM roofline_ops WHERE name='FlashAttentionScore_1'"),
             Catch::StartsWith("above its roof: 805 %"));
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
  CHECK(one(db, "SELECT count(*) FROM roofline_ops") == "4");
}

TEST_CASE("FLOP counters without byte counters give insufficient_data, not a guess") {
  test::AnalysisStore db;
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
  test::AnalysisStore db;
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

  test::AnalysisStore db;
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
  test::analyze(db, run);  // the share's device time: rank_totals
  CHECK(one(db, "SELECT pattern || ' ' || source || ' ' || instances FROM activation_patterns") ==
        "mish ops 3");
  CHECK(std::stod(one(db, "SELECT total_us FROM activation_patterns")) == Approx(180));
  CHECK(activation_share(db, run) == Approx(180.0 / 330));
  CHECK(one(db, "SELECT example FROM activation_patterns") == "Softplus0 -> Tanh0 -> Mul0");
}

TEST_CASE("activation chains follow each stream's start order, without communication tasks") {
  test::AnalysisStore db;
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    // Written out of start order, two streams interleaved; an HCCL task inside the chain is no
    // op of the sequence, but counts in the device time.
    auto on = [](store::OpTask t, int64_t stream) {
      t.stream_id = stream;
      return t;
    };
    w.add(on(op("Mul0", "Mul", "AI_VECTOR_CORE", 400, 10), 1));
    w.add(on(op("Softplus0", "Softplus", "AI_VECTOR_CORE", 100, 30), 1));
    w.add(on(op("Tanh1", "Tanh", "AI_VECTOR_CORE", 150, 20), 2));
    w.add(on(op("allreduce", "hcom_allReduce", "HCCL", 250, 100), 1));
    w.add(on(op("Tanh0", "Tanh", "AI_VECTOR_CORE", 200, 20), 1));
    w.commit();
  }
  test::analyze(db, run);
  CHECK(one(db,
            "SELECT pattern || ' ' || source || ' ' || instances || ' ' || example FROM "
            "activation_patterns") == "mish ops 1 Softplus0 -> Tanh0 -> Mul0");
  CHECK(activation_share(db, run) == Approx(60.0 / 180));
}

TEST_CASE("a Sigmoid -> Mul gate that broadcasts is not SiLU; one on the same shapes is") {
  test::AnalysisStore db;
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    int64_t t = 0;
    auto add = [&](const char* name, const char* type, const char* shapes, int64_t dur) {
      auto o = op(name, type, "AI_VECTOR_CORE", t += 100, dur);
      o.input_shapes = shapes;
      w.add(o);
    };
    // Squeeze-and-excitation: x * sigmoid(fc(pool(x))), the gate [8, 64, 1, 1] broadcast over
    // [8, 64, 28, 28]: a gate, not an activation.
    add("Sigmoid_se", "Sigmoid", "8,64,1,1", 5);
    add("Mul_se", "Mul", "8,64,28,28;8,64,1,1", 40);
    // SiLU: x * sigmoid(x), every tensor [8, 64, 28, 28].
    add("Sigmoid_act", "Sigmoid", "8,64,28,28", 30);
    add("Mul_act", "Mul", "8,64,28,28;8,64,28,28", 40);
    // Mish whose Mul broadcasts is not Mish either.
    add("Softplus_x", "Softplus", "8,64,28,28", 30);
    add("Tanh_x", "Tanh", "8,64,28,28", 30);
    add("Mul_x", "Mul", "8,64,28,28;8,1,28,28", 40);
    w.commit();
  }
  compute_activation_patterns(db, run);
  CHECK(one(db,
            "SELECT group_concat(pattern || ' ' || instances || ' ' || example) FROM "
            "activation_patterns") == "silu 1 Sigmoid_act -> Mul_act");
}

// Hand-computed FLOP counts of the ops that dominate LLM training (docs/packs/roofline.md).
TEST_CASE("LLM operator FLOP models match hand-computed values") {
  const std::vector<std::string> bf16 = {"BF16", "BF16", "BF16"};
  SECTION("FlashAttention forward in SBH, told apart from BSH by the softmax statistics") {
    // query [S=4096, B=2, H=512], 4 heads of 128; softmax_max/sum [B, N, S, 8] are outputs.
    auto fa = estimate("FlashAttentionScore", parse_shapes("4096,2,512;4096,2,512;4096,2,512"),
                       bf16, parse_shapes("2,4,4096,8;2,4,4096,8;0;4096,2,512"), bf16);
    REQUIRE(fa.ok);
    // 4 * B * N * Sq * Sk * D = 4 * 2 * 4 * 4096 * 4096 * 128 = 68.7 GFLOP (not S = 2).
    CHECK(fa.flops == Approx(4.0 * 2 * 4 * 4096 * 4096 * 128));
    CHECK(fa.flops == Approx(68.72e9).epsilon(0.001));
    // The same tensors in BSH ([B=4096?]) would need stats [4096, 4, 2, 8]: a BSH query
    // [2, 4096, 512] with the same statistics is B = 2, S = 4096 and counts the same.
    auto bsh = estimate("FlashAttentionScore", parse_shapes("2,4096,512;2,4096,512;2,4096,512"),
                        bf16, parse_shapes("2,4,4096,8;2,4,4096,8;0;2,4096,512"), bf16);
    REQUIRE(bsh.ok);
    CHECK(bsh.flops == Approx(fa.flops));
  }
  SECTION("FlashAttention with a compressed causal mask counts the lower triangle") {
    // BNSD [1, 32, 8192, 128], atten_mask [2048, 2048] (sparse_mode 2/3), stats [1, 32, 8192, 8].
    auto fa = estimate(
        "FlashAttentionScore", parse_shapes("1,32,8192,128;1,32,8192,128;1,32,8192,128;2048,2048"),
        {"BF16", "BF16", "BF16", "BOOL"}, parse_shapes("1,32,8192,8;1,32,8192,8"), bf16);
    REQUIRE(fa.ok);
    double full = 4.0 * 1 * 32 * 8192 * 8192 * 128;
    CHECK(fa.flops == Approx(full * (8192.0 + 1) / (2 * 8192)));
  }
  SECTION("FlashAttention backward in BSND is 2.5 times the forward") {
    // BSND [2, 1024, 16, 64]; the grad op takes softmax_max/sum [2, 16, 1024, 8] as inputs.
    auto grad = estimate("FlashAttentionScoreGrad",
                         parse_shapes("2,1024,16,64;2,1024,16,64;2,1024,16,64;2,1024,16,64;"
                                      "2,16,1024,8;2,16,1024,8"),
                         bf16, {}, {});
    REQUIRE(grad.ok);
    CHECK(grad.flops == Approx(2.5 * 4 * 2 * 16 * 1024 * 1024 * 64));
  }
  SECTION("FlashAttention without statistics or mask, or in TND, is not guessed") {
    auto bare = estimate("FlashAttentionScore", parse_shapes("4096,2,512;4096,2,512;4096,2,512"),
                         bf16, {}, {});
    CHECK_FALSE(bare.ok);
    CHECK_THAT(bare.why, Catch::StartsWith("no FLOP model"));
    auto tnd = estimate("FlashAttentionScore", parse_shapes("8192,8,128;8192,8,128;8192,8,128"),
                        bf16, parse_shapes("8192,8,8;8192,8,8;0;8192,8,128"), bf16);
    CHECK_FALSE(tnd.ok);
    CHECK_THAT(tnd.why, Catch::Contains("TND"));
  }
  SECTION("torch SDPA [B, N, S, D] and _flash_attention_forward [B, S, N, D]") {
    auto sdpa = estimate("aten::scaled_dot_product_attention",
                         parse_shapes("[[4,8,512,64],[4,8,512,64],[4,8,512,64]]"),
                         {"c10::BFloat16"}, {}, {});
    CHECK(sdpa.flops == Approx(4.0 * 4 * 8 * 512 * 512 * 64));
    auto fa = estimate("aten::_flash_attention_forward",
                       parse_shapes("[[4,512,8,64],[4,1024,8,64],[4,1024,8,64]]"),
                       {"c10::BFloat16"}, {}, {});
    CHECK(fa.flops == Approx(4.0 * 4 * 8 * 512 * 1024 * 64));
  }
  SECTION("MatMul transposes are read from the output shape; batch dims broadcast") {
    // x1 transposed: [K=1024, M=256] x [K=1024, N=512] -> [256, 512].
    auto ta = estimate("MatMulV2", parse_shapes("1024,256;1024,512"), bf16, parse_shapes("256,512"),
                       bf16);
    REQUIRE(ta.ok);
    CHECK(ta.flops == Approx(2.0 * 256 * 512 * 1024));
    // BatchMatMul [8, 1, 64, 32] x [1, 4, 32, 16] broadcasts to a batch of 8 x 4.
    auto bc = estimate("BatchMatMulV2", parse_shapes("8,1,64,32;1,4,32,16"), bf16,
                       parse_shapes("8,4,64,16"), bf16);
    REQUIRE(bc.ok);
    CHECK(bc.flops == Approx(2.0 * 32 * 64 * 16 * 32));
    // aten::matmul broadcasts too: [2, 3, 64, 32] @ [32, 16].
    auto am = estimate("aten::matmul", parse_shapes("[[2,3,64,32],[32,16]]"), {"float"}, {}, {});
    CHECK(am.flops == Approx(2.0 * 6 * 64 * 16 * 32));
    // FRACTAL_NZ storage [N1=32, M1=16, 16, 16] is the matrix [256, 512].
    auto nz =
        estimate("MatMul", logical_shapes(parse_shapes("256,1024;64,32,16,16"), "ND;FRACTAL_NZ"),
                 bf16, logical_shapes(parse_shapes("32,16,16,16"), "FRACTAL_NZ"), bf16);
    REQUIRE(nz.ok);
    CHECK(nz.flops == Approx(2.0 * 256 * 512 * 1024));
  }
  SECTION("GroupedMatmul: every row of x through one expert") {
    auto gmm = estimate("GroupedMatmul", parse_shapes("8192,4096;8,4096,1024;8"), bf16,
                        parse_shapes("8192,1024"), bf16);
    REQUIRE(gmm.ok);
    CHECK(gmm.flops == Approx(2.0 * 8192 * 4096 * 1024));
    auto lists = estimate("GroupedMatmul", parse_shapes("100,64;200,64;64,32;64,32"), bf16, {}, {});
    CHECK_FALSE(lists.ok);
  }
  SECTION("fused norms, RoPE and SwiGLU count per element") {
    auto rms = estimate("RmsNorm", parse_shapes("4096,4096;4096"), bf16, {}, {});
    CHECK(rms.flops == Approx(4.0 * 4096 * 4096));
    auto addrms = estimate("AddRmsNorm", parse_shapes("4096,4096;4096,4096;4096"), bf16, {}, {});
    CHECK(addrms.flops == Approx(5.0 * 4096 * 4096));
    auto ln = estimate("LayerNorm", parse_shapes("512,1024;1024;1024"), {"FLOAT"}, {}, {});
    CHECK(ln.flops == Approx(7.0 * 512 * 1024));
    auto rope = estimate("RotaryPositionEmbedding",
                         parse_shapes("8,2048,32,128;1,2048,1,128;1,2048,1,128"), bf16, {}, {});
    CHECK(rope.flops == Approx(3.0 * 8 * 2048 * 32 * 128));
    auto qk = estimate("ApplyRotaryPosEmb",
                       parse_shapes("8,2048,32,128;8,2048,8,128;1,2048,1,128;1,2048,1,128"), bf16,
                       {}, {});
    CHECK(qk.flops == Approx(3.0 * 8 * 2048 * (32 + 8) * 128));
    auto glu =
        estimate("SwiGlu", parse_shapes("4096,22016"), bf16, parse_shapes("4096,11008"), bf16);
    CHECK(glu.flops == Approx(6.0 * 4096 * 11008));
    CHECK(glu.bytes == Approx(2.0 * (4096 * 22016 + 4096 * 11008)));
  }
}

TEST_CASE("shape alignment: unaligned MatMul inner axes and attention head dims are found") {
  test::AnalysisStore db;
  int64_t run;
  {
    store::RunWriter w(db, {"j", {}, "fp", "now"});
    run = w.run_id();
    auto mm = op("MatMul_7", "MatMulV2", "AI_CORE", 0, 1000);
    mm.input_shapes = "4096,15365;15365,4096";
    mm.input_dtypes = "BF16;BF16";
    mm.input_formats = "ND;ND";
    mm.output_shapes = "4096,4096";
    w.add(mm);
    // FP32 rows align at 128 elements; an NZ weight is stored in fractals: not checked.
    auto ok = op("MatMul_8", "MatMul", "AI_CORE", 2000, 100);
    ok.input_shapes = "128,384;24,8,16,16";
    ok.input_dtypes = "FLOAT;FLOAT";
    ok.input_formats = "ND;FRACTAL_NZ";
    w.add(ok);
    // BNSD attention with D = 511 (the statistics name B, N and S).
    auto fa = op("FlashAttentionScore_3", "FlashAttentionScore", "MIX_AIC", 3000, 500);
    fa.input_shapes = "1,8,4096,511;1,8,4096,511;1,8,4096,511";
    fa.input_dtypes = "BF16;BF16;BF16";
    fa.output_shapes = "1,8,4096,8;1,8,4096,8;0;1,8,4096,511";
    w.add(fa);
    w.commit();
  }
  analyze_roofline(db, run, test::shipped_hardware());
  CHECK(one(db, "SELECT count(*) FROM shape_alignment") == "2");
  CHECK(one(db,
            "SELECT dim || ' ' || value || ' ' || padded FROM shape_alignment WHERE "
            "name='MatMul_7'") == "x1 inner axis 15365 15616");
  CHECK(one(db,
            "SELECT kind || ' ' || value || ' ' || padded FROM shape_alignment WHERE "
            "name='FlashAttentionScore_3'") == "attention_head_dim 511 512");
}
