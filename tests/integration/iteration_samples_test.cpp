// The iteration, cluster, schedule and GPU-iteration packs on the real samples (read in place):
// what the samples README says a good analyzer finds, and nothing noisy.
#include "cli_support.h"

using namespace perfsage::test;

namespace {
std::string sample(const std::string& rel) {
  return (samples_dir() / rel).string();
}

}  // namespace

TEST_CASE("trace_view alone: its two AI CPU device tasks are reported") {
  PERFSAGE_REQUIRE_SAMPLES();
  // No op table: the timeline's device tasks (Task Type AI_CPU) stand for the ops.
  auto report = analyze_json({sample("ascend/mstt/trace_view.json"), "--kb", "aicpu"});
  auto aicpu = findings(report, "aicpu", "aicpu_op");
  REQUIRE(aicpu.size() == 2);
  CHECK(has_subject(*aicpu[0], "aclnnReduceSum_CastAiCpu_Cast"));
  CHECK(evidence_number(*aicpu[0], "total_us") == Approx(188.1).epsilon(0.01));
  CHECK(has_subject(*aicpu[1], "aclnnCast_CastAiCpu_Cast"));
  CHECK(evidence_number(*aicpu[1], "total_us") == Approx(139.4).epsilon(0.01));
}

TEST_CASE("trace_view: on-line compilation is its opCompile part; no launch-blocking, loader, GC") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto report = analyze_json({sample("ascend/mstt/trace_view.json"), "--kb", "ascend_schedule",
                              "--kb", "training_iteration"});
  auto compile = findings(report, "ascend_schedule", "online_compile");
  REQUIRE(compile.size() == 1);
  // 11 opCompile calls of 156 us in a 14.09 ms step: about 1 %, so low. The 6.64 ms (47 %) of
  // aclopCompileAndExecute include executing the ops and are reported apart, never as the share.
  CHECK(sev(*compile[0]) == "low");
  CHECK(evidence_number(*compile[0], "op_compile_calls") == 11);
  CHECK(evidence_number(*compile[0], "op_compile_us") == Approx(156.1).epsilon(0.01));
  CHECK(evidence_number(*compile[0], "op_compile_share") == Approx(0.0111).epsilon(0.02));
  CHECK(evidence_number(*compile[0], "compile_execute_calls") == 11);
  CHECK(evidence_number(*compile[0], "compile_execute_us") == Approx(6637).epsilon(0.01));
  CHECK(compile[0]->estimated_gain_us() == Approx(156.1).epsilon(0.01));
  CHECK(compile[0]->estimated_gain_share() == Approx(0.0111).epsilon(0.02));
  CHECK_THAT(compile[0]->title(), Catch::Contains("1.1 %"));
  CHECK(compile[0]->message().find("jit_compile=False") != std::string::npos);

  auto fused = findings(report, "ascend_schedule", "fused_optimizer");
  REQUIRE(fused.size() == 1);
  CHECK(has_subject(*fused[0], "Optimizer.step#Adam.step"));
  CHECK(fused[0]->message().find("NpuFusedAdam") != std::string::npos);

  // Syncs exist but no Node@launch; loader calls are 1.3 ms; no SyncBatchNorm, no GC; 73 us of
  // memory APIs.
  CHECK(findings(report, "ascend_schedule", "launch_blocking").empty());
  CHECK(findings(report, "ascend_schedule", "slow_dataloader").empty());
  CHECK(findings(report, "ascend_schedule", "syncbatchnorm").empty());
  CHECK(findings(report, "ascend_schedule", "slow_gc").empty());
  CHECK(findings(report, "ascend_schedule", "memory_api").empty());

  // Device busy about 13 % of the 14,092 us step: host-bound.
  auto host = findings(report, "training_iteration", "host_bound");
  REQUIRE(host.size() == 1);
  CHECK(sev(*host[0]) == "high");
  CHECK(evidence_number(*host[0], "step_us") == Approx(14092).epsilon(0.01));
  CHECK(evidence_number(*host[0], "device_busy_share") == Approx(0.127).epsilon(0.05));
  CHECK(findings(report, "training_iteration", "free_time").empty());
  CHECK(findings(report, "training_iteration", "exposed_communication").empty());
  // The Adam step is fusable: ascend_schedule owns it, training_iteration stays silent.
  CHECK(findings(report, "training_iteration", "optimizer_share").empty());
  CHECK(findings(report, "training_iteration", "dataloader_share").empty());
}

TEST_CASE("cluster_step_trace_time: exposed-communication and free spreads, not computing") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto report =
      analyze_json({sample("ascend/mstt/cluster_step_trace_time.csv"), "--kb", "cluster"});
  CHECK(findings(report, "cluster", "slow_rank_computing").empty());
  auto comm = findings(report, "cluster", "slow_rank_communication");
  REQUIRE(comm.size() == 1);
  CHECK(evidence_text(*comm[0], "most_exposed_rank") == "rank 5");
  CHECK(evidence_text(*comm[0], "least_exposed_rank") == "rank 1");
  CHECK(evidence_number(*comm[0], "spread_us") == Approx(622989).epsilon(0.001));
  CHECK(evidence_number(*comm[0], "spread_share") == Approx(0.36).epsilon(0.03));
  CHECK(evidence_number(*comm[0], "mean_total_us") == Approx(1713736).epsilon(0.001));
  auto free = findings(report, "cluster", "slow_rank_free");
  REQUIRE(free.size() == 1);
  CHECK(has_subject(*free[0], "rank 1"));
  CHECK(evidence_number(*free[0], "spread_us") == Approx(595773).epsilon(0.001));
  CHECK(evidence_number(*free[0], "spread_share") == Approx(0.35).epsilon(0.03));
  // No communication.json: no link, packet or bandwidth finding.
  CHECK(findings(report, "cluster", "slow_link").empty());
  CHECK(findings(report, "cluster", "low_bandwidth").empty());
  CHECK(findings(report, "cluster", "small_packets").empty());
}

TEST_CASE("AlexNet Kineto trace: start-up, not GPU gaps or utilisation") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto report = analyze_json(
      {sample(
           "kineto/hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz"),
       "--kb", "gpu_iteration", "--kb", "gpu_runtime"});
  // The profile has no steps, and one cudaDeviceGetStreamPriorityRange call (CUDA context
  // creation) takes 29.9 s of its 43.4 s: its 4 GPU gaps of at least 500 ms and 0.5 % GPU
  // utilisation measure start-up, which profile_startup reports first.
  REQUIRE(report.recommendations_size() > 0);
  CHECK(report.recommendations(0).rule() == "profile_startup");
  auto startup = findings(report, "gpu_runtime", "profile_startup");
  REQUIRE(startup.size() == 1);
  CHECK(evidence_number(*startup[0], "longest_call_us") == Approx(29.93e6).epsilon(0.001));
  CHECK(sev(*startup[0]) == "high");
  CHECK(findings(report, "gpu_iteration", "gpu_gaps").empty());
  CHECK(findings(report, "gpu_iteration", "low_utilisation").empty());
  // No steps with a breakdown: no step-based finding.
  CHECK(findings(report, "gpu_iteration", "dataloader_share").empty());
  CHECK(findings(report, "gpu_iteration", "exposed_communication").empty());
}

TEST_CASE("CPU-only trace and Ascend op tables: only the block-dim check fires") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto cpu =
      analyze_json({sample("kineto/hta__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"),
                    "--kb", "gpu_iteration", "--kb", "cluster", "--kb", "training_iteration",
                    "--kb", "ascend_schedule"});
  CHECK(findings(cpu, "gpu_iteration").empty());
  CHECK(findings(cpu, "cluster").empty());
  CHECK(findings(cpu, "training_iteration").empty());
  CHECK(findings(cpu, "ascend_schedule").empty());
  auto ops = analyze_json({sample("ascend/mstt/kernel_details_arith_util.csv"), "--kb", "cluster",
                           "--kb", "training_iteration", "--kb", "ascend_schedule"});
  CHECK(findings(ops, "cluster").empty());
  // No step breakdown: the HCCL tasks' 87 % of device time is reported, with no gain guessed.
  auto comm = findings(ops, "training_iteration");
  REQUIRE(comm.size() == 1);
  CHECK(comm[0]->rule() == "communication_dominates");
  CHECK(sev(*comm[0]) == "medium");
  CHECK(evidence_number(*comm[0], "comm_share") == Approx(0.87).epsilon(0.02));
  CHECK(evidence_text(*comm[0], "top_comm_op").rfind("hcom_broadcast_", 0) == 0);
  // Block dims: 24 cube / 48 vector cores inferred (no info.json); AI_CORE ops use 24 (fine),
  // most vector ops are not multiples of 48.
  auto bd = findings(ops, "ascend_schedule", "block_dim");
  REQUIRE(bd.size() == 1);
  CHECK(has_subject(*bd[0], "AI_VECTOR_CORE"));
  CHECK(sev(*bd[0]) == "low");
  CHECK(evidence_number(*bd[0], "cores") == 48);
  CHECK(evidence_text(*bd[0], "cores_source") == "inferred");
  CHECK(evidence_number(*bd[0], "misaligned_tasks") == 343);
  CHECK(findings(ops, "ascend_schedule").size() == 1);
}

TEST_CASE("GE dumps alone: the AI CPU Unique node and unknown-shape execution are found") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto report = analyze_json({sample("ascend/oam-tools/ge_proto_00000001_Build.txt")});
  // Unique runs on DNN_VM_AICPU / aicpu_tf_kernel (its _engine_type attr says AIcoreEngine).
  auto aicpu = findings(report, "aicpu", "aicpu_graph_node");
  REQUIRE(aicpu.size() == 1);
  CHECK(has_subject(*aicpu[0], "Unique"));
  CHECK(evidence_text(*aicpu[0], "kernel_lib") == "aicpu_tf_kernel");
  auto dyn = findings(report, "ascend_schedule", "dynamic_shape_graph");
  REQUIRE(dyn.size() == 1);
  CHECK(evidence_number(*dyn[0], "graphs") == 5);
  CHECK(report.recommendations_size() == 2);

  // The 2020 dump: one AI Core GatherV2D, nothing on the AI CPU, nothing fused: no finding.
  auto old = analyze_json({sample("ascend/oam-tools/ge_proto_00056_Build.txt")});
  CHECK(old.recommendations_size() == 0);
}
