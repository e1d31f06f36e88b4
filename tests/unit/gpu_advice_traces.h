// Kineto traces made the way real runs differ, for the GPU advice tests (gpu_advice_test) and
// the text checks (report_text_test): each shows one guard's firing or silent side.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "unit/kineto_trace_builder.h"

namespace perfsage::test {

// Five 10 ms steps, each with 6 ms of kernels on stream 7.
inline KinetoTraceBuilder busy_steps() {
  KinetoTraceBuilder b;
  for (int s = 0; s < 5; ++s) {
    double t = 1000 + s * 10000;
    b.step(s + 1, t, 10000);
    for (int k = 0; k < 6; ++k)
      b.launch("cudaLaunchKernel", t + 10 + k * 1000, 5, "kernel", "my_kernel", t + 100 + k * 1000,
               900);
  }
  return b;
}

// Five 2 ms steps of 200 tiny kernels. Shallow: the host launches each kernel just before the
// previous one ends. Deep: the host enqueues the whole step at its start and the GPU works
// through the queue. `call` names the enqueueing call.
inline KinetoTraceBuilder tiny_kernels(bool deep, const std::string& call = "cudaLaunchKernel") {
  KinetoTraceBuilder b;
  for (int s = 0; s < 5; ++s) {
    double t = 1000 + s * 2000;
    b.step(s + 1, t, 2000);
    for (int k = 0; k < 200; ++k) {
      double launch = deep ? t + k * 1.0 : t + k * 9.0;
      double start = deep ? t + 220 + k * 8.0 : launch + 7;
      b.launch(call, launch, deep ? 0.5 : 5, "kernel", "vectorized_elementwise_kernel", start, 4);
    }
  }
  return b;
}

// Five 10 ms steps: 5 ms of compute, then 3 ms of a collective on stream 20 not under compute.
inline KinetoTraceBuilder exposed_collective(const std::string& kernel, int world_size) {
  KinetoTraceBuilder b;
  b.distributed(0, world_size);
  for (int s = 0; s < 5; ++s) {
    double t = 1000 + s * 10000;
    b.step(s + 1, t, 10000);
    b.launch("cudaLaunchKernel", t + 10, 5, "kernel", "my_kernel", t + 100, 5000);
    b.launch("cudaLaunchKernel", t + 20, 5, "kernel", kernel, t + 5200, 3000, 20);
  }
  return b;
}

// FP32 matmuls (aten::mm on float inputs) whose kernels use no matrix units: 6 ms per 10 ms step.
inline KinetoTraceBuilder fp32_matmuls(const std::string& kernel) {
  KinetoTraceBuilder b;
  int64_t ext = 1;
  for (int s = 0; s < 5; ++s) {
    double t = 1000 + s * 10000;
    b.step(s + 1, t, 10000);
    for (int k = 0; k < 3; ++k, ++ext) {
      std::string id = R"("External id": )" + std::to_string(ext);
      b.op("aten::mm", t + 10 + k * 2000, 50, id + R"(, "Input type": ["float", "float"])");
      b.launch("cudaLaunchKernel", t + 20 + k * 2000, 5, "kernel", kernel, t + 100 + k * 2000, 2000,
               7, id);
    }
  }
  return b;
}

// busy_steps() with a 1.5 ms cudaDeviceSynchronize inside every step.
inline KinetoTraceBuilder sync_in_steps() {
  auto b = busy_steps();
  for (int s = 0; s < 5; ++s) b.runtime("cudaDeviceSynchronize", 1000 + s * 10000 + 7000, 1500);
  return b;
}

// busy_steps() with a 40 ms cudaDeviceSynchronize after the last step (profiler teardown).
inline KinetoTraceBuilder sync_after_last_step() {
  auto b = busy_steps();
  b.runtime("cudaDeviceSynchronize", 1000 + 5 * 10000 + 100, 40000);
  return b;
}

// busy_steps() with a .item() per step: aten::item > aten::_local_scalar_dense > a 1.9 ms
// cudaMemcpyAsync whose copy is `copy_name` (pageable or pinned).
inline KinetoTraceBuilder dtoh_copy_steps(const std::string& copy_name) {
  auto b = busy_steps();
  for (int s = 0; s < 5; ++s) {
    double t = 1000 + s * 10000 + 6500;
    b.op("aten::item", t, 2000);
    b.op("aten::_local_scalar_dense", t + 10, 1980);
    b.launch("cudaMemcpyAsync", t + 20, 1900, "gpu_memcpy", copy_name, t + 1850, 5, 7,
             R"("bytes": 4)");
  }
  return b;
}

// A user kernel (templated, long name) and a cuDNN kernel, both at 15 % occupancy.
inline const std::string kUserKernel =
    "void my_ns::my_kernel<float, 256, (anonymous namespace)::Functor>(float const*, float*, int)";
inline const std::string kLibraryKernel =
    "void cudnn::detail::implicit_convolve_sgemm<float, float, 1024>(int)";
inline KinetoTraceBuilder library_and_user_kernels() {
  KinetoTraceBuilder b;
  for (int s = 0; s < 5; ++s) {
    double t = 1000 + s * 10000;
    b.step(s + 1, t, 10000);
    b.launch("cudaLaunchKernel", t + 10, 5, "kernel", kUserKernel, t + 100, 3000, 7,
             R"("est. achieved occupancy %": 15)");
    b.launch("cudaLaunchKernel", t + 20, 5, "kernel", kLibraryKernel, t + 3200, 3000, 7,
             R"("est. achieved occupancy %": 15)");
  }
  return b;
}

// Four 9 ms steps and a 49 us stub step cut short by the end of profiling.
inline KinetoTraceBuilder stub_last_step() {
  KinetoTraceBuilder b;
  for (int s = 0; s < 4; ++s) {
    double t = 1000 + s * 9000;
    b.step(s + 1, t, 9000);
    b.launch("cudaLaunchKernel", t + 10, 5, "kernel", "my_kernel", t + 100, 8000);
  }
  // The profiler stopped just after the last step began: one CPU op in it.
  b.step(5, 1000 + 4 * 9000, 49);
  b.op("aten::zeros", 1000 + 4 * 9000 + 5, 20);
  return b;
}

// A CUPTI range-profiler trace on an A100-80GB: two FP32 ranges of 2.002 GFLOP over 300 MB of
// DRAM traffic (6.67 FLOP/byte, below the FP32 ridge of 19.5 TFLOP/s / 2039 GB/s = 9.56) and
// one range with Tensor Core instructions.
inline KinetoTraceBuilder range_profiler() {
  KinetoTraceBuilder b;
  const std::string fp32 =
      R"("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1000000000, )"
      R"("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 1000000, )"
      R"("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 1000000, )"
      R"("dram__bytes_read.sum": 200000000, "dram__bytes_write.sum": 100000000)";
  b.gpu("cuda_profiler_range", "layer1_matmul", 1000, 1000, 0, -1, fp32);
  b.gpu("cuda_profiler_range", "layer1_matmul", 2000, 1000, 0, -1, fp32);
  b.gpu("cuda_profiler_range", "attention", 3000, 1000, 0, -1,
        R"("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1000000, )"
        R"("sm__inst_executed_pipe_tensor.sum": 5000000, "dram__bytes_read.sum": 100000000)");
  return b;
}

// Rank `rank` of a two-rank DDP job: five 10 ms steps of 5 ms compute, then an all-reduce that
// ends at the same moment on both ranks. Rank 1 computes 2 ms longer, so rank 0 waits 2 ms in
// every all-reduce; rank 1's host clock runs `skew_us` ahead of rank 0's.
inline KinetoTraceBuilder ddp_rank(int rank, double skew_us) {
  KinetoTraceBuilder b;
  b.distributed(rank, 2);
  const double late = rank == 1 ? 2000 : 0, shift = rank == 1 ? skew_us : 0;
  for (int s = 0; s < 5; ++s) {
    double t = 1000 + s * 10000 + shift;
    b.step(s + 1, t, 10000);
    b.launch("cudaLaunchKernel", t + 10, 5, "kernel", "my_kernel", t + 100, 5000 + late);
    double comm_start = t + 5200 + late, comm_end = t + 8200;
    b.launch("cudaLaunchKernel", t + 20, 5, "kernel",
             "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", comm_start,
             comm_end - comm_start, 20);
  }
  return b;
}

// Every trace above, named, with the devices the precision advice depends on.
inline std::vector<std::pair<std::string, KinetoTraceBuilder>> gpu_advice_traces() {
  std::vector<std::pair<std::string, KinetoTraceBuilder>> out = {
      {"sync in steps", sync_in_steps()},
      {"sync after the last step", sync_after_last_step()},
      {"pageable DtoH copy", dtoh_copy_steps("Memcpy DtoH (Device -> Pageable)")},
      {"pinned DtoH copy", dtoh_copy_steps("Memcpy DtoH (Device -> Pinned)")},
      {"tiny kernels, shallow queue", tiny_kernels(false)},
      {"tiny kernels, deep queue", tiny_kernels(true)},
      {"tiny kernels, CUDA graphs", tiny_kernels(false, "cudaGraphLaunch")},
      {"all-reduce, 1 of 8 ranks",
       exposed_collective("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 8)},
      {"SendRecv",
       exposed_collective("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", 1)},
      {"FP32 on A100", fp32_matmuls("ampere_sgemm_128x64_nn")},
      {"library and user kernels", library_and_user_kernels()},
      {"stub step", stub_last_step()},
      {"CUPTI ranges", range_profiler()}};
  auto v100 = fp32_matmuls("volta_sgemm_128x64_nn");
  v100.device("Tesla V100-SXM2-32GB", 7, 0, 80, 32);
  out.emplace_back("FP32 on V100", v100);
  auto mi250 = fp32_matmuls("Cijk_Ailk_Bljk_SB_MT64x64x8_SN_1LDSB0_APM1_ABV0");
  mi250.device("AMD Instinct MI250X / MI250", 9, 0, 110, 64);
  out.emplace_back("FP32 on MI250", mi250);
  return out;
}

}  // namespace perfsage::test
