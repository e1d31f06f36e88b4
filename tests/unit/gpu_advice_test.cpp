// GPU advice on traces made the way real runs differ (tests/unit/kineto_trace_builder.h), each
// rule with a firing case and a silent case from its guard: a sync inside the steps vs one after
// the last step, a pageable device-to-host copy vs a pinned asynchronous one, tiny kernels on a
// shallow queue vs a deep one or CUDA graphs, all-reduce vs SendRecv with the one-rank caveat,
// FP32 matmuls on an A100, a V100 and an MI250, library vs user kernels, a stub last step.
// Needs no ../shared.
#include <string>

#include "engine/kb/message_text.h"
#include "integration/cli_support.h"
#include "unit/gpu_advice_traces.h"
#include "test_support.h"

using namespace perfsage;
using namespace perfsage::test;

namespace {

perfsage::v1::AnalysisReport analyze_trace(const KinetoTraceBuilder& b) {
  TempDir dir;
  auto path = dir.write("run.pt.trace.json", b.json());
  return analyze_json({path.string()});
}

bool any_text(const perfsage::v1::AnalysisReport& r, const std::string& needle) {
  for (const auto& f : r.recommendations())
    if (f.title().find(needle) != std::string::npos ||
        f.message().find(needle) != std::string::npos)
      return true;
  return false;
}


}  // namespace

TEST_CASE("a sync inside the steps is a finding, one after the last step is not", "[gpu][advice]") {
  SECTION("in the step") {
    auto r = analyze_trace(sync_in_steps());
    auto f = findings(r, "gpu_runtime", "sync_api");
    REQUIRE(f.size() == 1);
    CHECK(sev(*f[0]) == "high");
    CHECK(evidence_number(*f[0], "per_step_us") == Approx(1500));
    CHECK(f[0]->estimated_gain_us() == Approx(750));
  }
  SECTION("in the steps of two ranks: per step of one rank, counted once per rank") {
    TempDir dir;
    auto r0 = sync_in_steps();
    r0.distributed(0, 2);
    auto r1 = sync_in_steps();
    r1.distributed(1, 2);
    auto r = analyze_json({dir.write("rank0.pt.trace.json", r0.json()).string(),
                           dir.write("rank1.pt.trace.json", r1.json()).string()});
    auto f = findings(r, "gpu_runtime", "sync_api");
    REQUIRE(f.size() == 1);
    CHECK(evidence_number(*f[0], "per_step_us") == Approx(1500));
    CHECK(evidence_number(*f[0], "ranks") == 2);
    CHECK(evidence_number(*f[0], "calls") == 10);
  }
  SECTION("after the last step: profiler teardown waits for a full queue") {
    auto r = analyze_trace(sync_after_last_step());
    CHECK(findings(r, "gpu_runtime", "sync_api").empty());
    CHECK_FALSE(any_text(r, "cudaDeviceSynchronize"));
  }
}

TEST_CASE("a blocking device-to-host copy is attributed to the op that issued it",
          "[gpu][advice]") {
  SECTION("into pageable memory: the call waits for the queue") {
    auto r = analyze_trace(dtoh_copy_steps("Memcpy DtoH (Device -> Pageable)"));
    auto f = findings(r, "gpu_runtime", "blocking_dtoh_copy");
    REQUIRE(f.size() == 1);
    CHECK(evidence_text(*f[0], "op") == "aten::_local_scalar_dense");
    CHECK(evidence_text(*f[0], "top_op") == "aten::item");
    CHECK(evidence_number(*f[0], "per_step_us") == Approx(1900));
    CHECK(sev(*f[0]) == "high");  // 19 % of the step
    CHECK(f[0]->title().find("aten::_local_scalar_dense") != std::string::npos);
    // Not reported a second time as a microsecond-sized pageable-memory finding.
    CHECK(findings(r, "gpu_runtime", "pageable_memcpy").empty());
  }
  SECTION("asynchronously into pinned memory: the host goes on") {
    auto r = analyze_trace(dtoh_copy_steps("Memcpy DtoH (Device -> Pinned)"));
    CHECK(findings(r, "gpu_runtime", "blocking_dtoh_copy").empty());
    CHECK(findings(r, "gpu_runtime", "sync_api").empty());
  }
}

TEST_CASE("launch-bound advice needs shallow queues and no CUDA graphs", "[gpu][advice]") {
  SECTION("shallow queue, short gaps between back-to-back kernels: launch-bound") {
    auto r = analyze_trace(tiny_kernels(false));
    auto f = findings(r, "gpu_runtime", "launch_bound");
    REQUIRE(f.size() == 1);
    CHECK(evidence_number(*f[0], "queue_median_depth") <= 1.0);
    CHECK(evidence_number(*f[0], "kernel_wait_share") > 0.5);
  }
  SECTION("deep queue: the host runs ahead, the GPU is the bottleneck") {
    auto r = analyze_trace(tiny_kernels(true));
    CHECK(findings(r, "gpu_runtime", "launch_bound").empty());
    CHECK(findings(r, "gpu_runtime", "launch_delay").empty());
    CHECK_FALSE(any_text(r, "CUDA Graphs"));
  }
  SECTION("work already launched through CUDA graphs") {
    auto r = analyze_trace(tiny_kernels(false, "cudaGraphLaunch"));
    CHECK(findings(r, "gpu_runtime", "launch_bound").empty());
    CHECK(findings(r, "gpu_kernels", "tiny_kernels_per_op").empty());
  }
}

TEST_CASE("communication advice follows the collective type", "[gpu][advice]") {
  SECTION("all-reduce: DDP bucketing, with the one-rank caveat") {
    auto r = analyze_trace(
        exposed_collective("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 8));
    auto f = findings(r, "gpu_iteration", "exposed_communication");
    REQUIRE(f.size() == 1);
    CHECK(evidence_text(*f[0], "collective") == "AllReduce");
    CHECK(f[0]->message().find("bucket") != std::string::npos);
    CHECK(f[0]->message().find("Only 1 of the job's 8 ranks") != std::string::npos);
  }
  SECTION("SendRecv: no DDP bucketing advice") {
    auto r = analyze_trace(
        exposed_collective("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", 1));
    auto f = findings(r, "gpu_iteration", "exposed_communication");
    REQUIRE(f.size() == 1);
    CHECK(evidence_text(*f[0], "collective") == "SendRecv");
    CHECK(f[0]->message().find("bucket") == std::string::npos);
    CHECK(f[0]->message().find("point-to-point") != std::string::npos);
    CHECK(f[0]->message().find("ranks were profiled") == std::string::npos);
  }
}

TEST_CASE("precision advice comes from the part's matrix units", "[gpu][advice]") {
  SECTION("A100: TF32 or bf16") {
    auto r = analyze_trace(fp32_matmuls("ampere_sgemm_128x64_nn"));
    CHECK(findings(r, "gpu_kernels", "fp32_without_tensor_cores").size() == 1);
    CHECK(findings(r, "gpu_kernels", "fp32_amp_float16").empty());
  }
  SECTION("V100: AMP float16 with GradScaler, never TF32 or bf16") {
    auto b = fp32_matmuls("volta_sgemm_128x64_nn");
    b.device("Tesla V100-SXM2-32GB", 7, 0, 80, 32);
    auto r = analyze_trace(b);
    auto f = findings(r, "gpu_kernels", "fp32_amp_float16");
    REQUIRE(f.size() == 1);
    CHECK(f[0]->message().find("GradScaler") != std::string::npos);
    CHECK(findings(r, "gpu_kernels", "fp32_without_tensor_cores").empty());
    CHECK_FALSE(any_text(r, "allow_tf32"));
    CHECK_FALSE(any_text(r, "set_float32_matmul_precision"));
    CHECK_FALSE(any_text(r, "bfloat16"));
  }
  SECTION("V100 without recorded input types: an sgemm kernel is FP32 by its name") {
    auto untyped = [](const std::string& gemm) {
      KinetoTraceBuilder b;
      b.device("Tesla V100-SXM2-32GB", 7, 0, 80, 32);
      for (int s = 0; s < 5; ++s) {
        double t = 1000 + s * 10000;
        std::string id = R"("External id": )" + std::to_string(s + 1);
        b.step(s + 1, t, 10000);
        b.op("aten::addmm", t + 10, 50, id);  // record_shapes=False: no "Input type"
        b.launch("cudaLaunchKernel", t + 20, 5, "kernel", gemm, t + 100, 6000, 7, id);
        b.launch("cudaLaunchKernel", t + 30, 5, "kernel", "my_kernel", t + 6200, 2000, 7);
      }
      return b;
    };
    auto r = analyze_trace(untyped("volta_sgemm_128x64_nt"));
    auto f = findings(r, "gpu_kernels", "fp32_amp_float16");
    REQUIRE(f.size() == 1);
    CHECK(evidence_number(*f[0], "fp32_share") == Approx(0.75));
    // Another GEMM on unrecorded types may be any precision: no advice.
    auto r2 = analyze_trace(untyped("my_gemm_kernel"));
    CHECK(findings(r2, "gpu_kernels", "fp32_amp_float16").empty());
  }
  SECTION("MI250: AMP on ROCm's matrix cores, compute capability 9 is no Hopper") {
    auto b = fp32_matmuls("Cijk_Ailk_Bljk_SB_MT64x64x8_SN_1LDSB0_APM1_ABV0");
    b.device("AMD Instinct MI250X / MI250", 9, 0, 110, 64);
    auto r = analyze_trace(b);
    CHECK(findings(r, "gpu_kernels", "amd_fp32_without_matrix_cores").size() == 1);
    CHECK(findings(r, "gpu_kernels", "fp32_without_tensor_cores").empty());
    CHECK(findings(r, "gpu_kernels", "fp32_amp_float16").empty());
    CHECK_FALSE(any_text(r, "allow_tf32"));
  }
  SECTION("MFMA kernels are matrix-core work") {
    auto b = fp32_matmuls("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB1");
    b.device("AMD Instinct MI250X / MI250", 9, 0, 110, 64);
    auto r = analyze_trace(b);
    CHECK(findings(r, "gpu_kernels", "amd_fp32_without_matrix_cores").empty());
  }
}

TEST_CASE("occupancy advice only for kernels the user can change", "[gpu][advice]") {
  const std::string& user = kUserKernel;
  auto r = analyze_trace(library_and_user_kernels());
  auto low = findings(r, "gpu_kernels", "low_occupancy");
  REQUIRE(low.size() == 1);
  CHECK(has_subject(*low[0], user));
  // The title names the kernel without its return type, template arguments and parameters;
  // the evidence keeps the full name.
  CHECK(low[0]->title().find("my_ns::my_kernel<...>") != std::string::npos);
  CHECK(low[0]->title().find("float const*") == std::string::npos);
  CHECK(evidence_text(*low[0], "kernel") == user);
  auto lib = findings(r, "gpu_kernels", "library_kernel_choice");
  REQUIRE(lib.size() == 1);
  CHECK(sev(*lib[0]) == "info");
  CHECK(lib[0]->message().find("cudnn.benchmark") != std::string::npos);
}

TEST_CASE("a stub last step is left out of the mean step", "[gpu][advice]") {
  auto r = analyze_trace(stub_last_step());
  CHECK(r.base().us() == Approx(9000));
  CHECK(r.base().text().find("1 stub step(s)") != std::string::npos);
  // The run's step time reads the same steps (analyzers/core/step_ctes.h).
  CHECK(r.run().step_time_us() == Approx(9000));
}

TEST_CASE("short_name elides return types, template arguments and parameter lists", "[format]") {
  CHECK(engine::short_name("void at::native::vectorized_elementwise_kernel<4, "
                           "at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, "
                           "at::native::FillFunctor<float>, at::detail::Array<char*, 1>)") ==
        "at::native::vectorized_elementwise_kernel<...>");
  CHECK(engine::short_name("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)") ==
        "ncclKernel_AllReduce_RING_LL_Sum_float");
  CHECK(engine::short_name("void at::native::(anonymous namespace)::f<int>(int)") ==
        "at::native::(anonymous namespace)::f<...>");
  CHECK(engine::short_name("volta_sgemm_128x64_nn") == "volta_sgemm_128x64_nn");
  CHECK(engine::short_name(std::string(300, 'k')).size() == 100);
}

TEST_CASE("a CUPTI range-profiler trace is read as counters and said to be one",
          "[gpu][advice][cupti]") {
  auto r = analyze_trace(range_profiler());
  auto trace = findings(r, "roofline", "range_profiler_trace");
  REQUIRE(trace.size() == 1);
  CHECK(evidence_number(*trace[0], "ranges") == 3);
  CHECK(evidence_number(*trace[0], "with_tensor") == 1);
  CHECK(trace[0]->message().find("replay times") != std::string::npos);
  auto mem = findings(r, "roofline", "range_memory_side");
  REQUIRE(mem.size() == 1);
  CHECK(has_subject(*mem[0], "layer1_matmul"));
  CHECK(evidence_number(*mem[0], "flops") == Approx(2 * 2.002e9));
  CHECK(evidence_number(*mem[0], "intensity") == Approx(2.002e9 / 3e8));
  // No time-based rule judges replayed times.
  CHECK(findings(r, "gpu_iteration").empty());
  CHECK(findings(r, "gpu_runtime").empty());
}

TEST_CASE("with every rank given, collectives split into waiting and transfer", "[gpu][advice]") {
  // Rank 1 computes 2 ms longer; its clock runs 5 ms ahead, which aligning the all-reduces' ends
  // removes. Rank 0 waits 2 ms in each of 5 all-reduces: 10 ms over 10 rank-steps of 10 ms.
  TempDir dir;
  auto r0 = dir.write("rank0.pt.trace.json", ddp_rank(0, 5000).json());
  auto r1 = dir.write("rank1.pt.trace.json", ddp_rank(1, 5000).json());
  auto r = analyze_json({r0.string(), r1.string()});
  auto f = findings(r, "gpu_iteration", "collective_straggler");
  REQUIRE(f.size() == 1);
  CHECK(evidence_number(*f[0], "straggler") == 1);
  CHECK(evidence_number(*f[0], "straggler_last") == 5);
  CHECK(evidence_number(*f[0], "wait_us") == Approx(10000));
  CHECK(evidence_number(*f[0], "wait_per_step_us") == Approx(1000));
  CHECK(evidence_number(*f[0], "max_clock_offset_us") == Approx(5000));
  // Both ranks profiled: no one-rank caveat on the exposed communication.
  auto exposed = findings(r, "gpu_iteration", "exposed_communication");
  REQUIRE(exposed.size() == 1);
  CHECK(exposed[0]->message().find("ranks were profiled") == std::string::npos);
}

TEST_CASE("a step marker that outlives the profile is cut to the recorded events",
          "[gpu][advice]") {
  // HTA's Triton example: ProfilerStep#1 lasts 13.3 s while the file's other events span a
  // millisecond and a half; per-step shares over 13.3 s would be meaningless.
  KinetoTraceBuilder b;
  b.step(1, 500, 13336315);
  b.launch("cuLaunchKernel", 1000, 48, "kernel", "triton_poi_fused_add_cos_sin_0", 1060, 2);
  b.runtime("cudaDeviceSynchronize", 2500, 17);
  auto r = analyze_trace(b);
  CHECK(r.base().us() == Approx(1517));
  REQUIRE(r.ingest_size() == 1);
  bool said = false;
  for (const auto& w : r.ingest(0).warnings()) said |= w.find("cut to them") != std::string::npos;
  CHECK(said);
}
