// Host-API and GPU fact types, all from the GPU analyzer's tables: api (api_totals; it also
// covers AscendCL calls), kernel (kernel_totals), memcpy (copy_groups), launch
// (gpu_launch_profile), gpu_launch and gpu_time, gpu_kernel and tensor_core (kernel_groups).
#include "analyzers/core/fact_types.h"

namespace perfsage::analyzers {

using store::FactType;
using store::median_of;
using store::SlotType;

namespace {

// Kernel-name substrings of Tensor-Core kernels: the tb_plugin list (knowledge.md §6.4)
// extended with TF32, Hopper (sm90, wgmma) and CUTLASS names.
constexpr const char* kTensorCoreKernel = R"sql((k.name LIKE '%h884%' OR k.name LIKE '%s884%'
  OR k.name LIKE '%h1688%' OR k.name LIKE '%s1688%' OR k.name LIKE '%hmma%' OR k.name LIKE '%i8816%'
  OR k.name LIKE '%16816%' OR k.name LIKE '%c1688%' OR k.name LIKE '%xmma%' OR k.name LIKE '%tf32%'
  OR k.name LIKE '%wgmma%' OR k.name LIKE '%sm90%' OR k.name LIKE '%tensorop%'
  OR k.name LIKE '%dgrad_1x1_stride_2x2%' OR k.name LIKE '%first_layer_wgrad_kernel%'
  OR k.name LIKE '%conv1x1%' OR k.name LIKE '%conv2d_c1_k1%' OR k.name LIKE '%direct_group%'
  OR k.name LIKE '%mfma%' OR k.name GLOB '*_MI[0-9]*x[0-9]*'))sql";

// Who wrote a kernel, from its name (docs/gpu-definitions.md, "Kernel origin"): a library's
// kernels (block size, registers and algorithm are the library's choice), PyTorch's own, Triton
// (torch.compile or hand-written), or user code. Order matters: cuDNN's implicit-GEMM
// convolutions contain "gemm", rocBLAS/Tensile names start with Cijk.
constexpr const char* kOrigin = R"sql(CASE
  WHEN k.name LIKE '%nccl%' THEN 'nccl'
  WHEN k.name LIKE '%rccl%' THEN 'rccl'
  WHEN k.name LIKE '%hipblaslt%' THEN 'hipblaslt'
  WHEN k.name GLOB 'Cijk_*' THEN 'tensile'
  WHEN k.name LIKE '%miopen%' OR k.name GLOB 'naive_conv*' OR k.name GLOB '*igemm*' THEN 'miopen'
  WHEN k.name LIKE '%cudnn%' OR k.name LIKE '%implicit_convolve%' OR k.name LIKE '%dgrad%'
    OR k.name LIKE '%wgrad%' OR k.name LIKE '%fprop%' OR k.name LIKE '%winograd%'
    OR k.name LIKE '%nchwToNhwc%' OR k.name LIKE '%nhwcToNchw%' OR k.name LIKE '%bn_fw_%'
    OR k.name LIKE '%bn_bw_%' OR k.name GLOB '*conv2d_grouped_direct*' THEN 'cudnn'
  WHEN k.name LIKE '%cutlass%' THEN 'cutlass'
  WHEN k.name LIKE '%cublas%' OR k.name LIKE '%gemm%' OR k.name LIKE '%gemv%'
    OR k.name LIKE '%xmma%' OR k.name GLOB '*_sgemm_*' OR k.name LIKE '%splitKreduce%' THEN 'cublas'
  WHEN k.name LIKE 'triton%' OR k.name LIKE '%triton_%' THEN 'triton'
  WHEN k.name LIKE '%at::native%' OR k.name LIKE '%at::%' OR k.name LIKE '%c10::%'
    OR k.name LIKE '%pytorch%' OR k.name LIKE '%Memcpy%' OR k.name LIKE '%Memset%' THEN 'pytorch'
  ELSE 'user' END)sql";

// CPU ops whose kernels could use Tensor Cores (autocast lists: convolutions, matmuls, RNNs).
constexpr const char* kEligibleOp =
    R"sql((k.op LIKE 'aten::conv%' OR k.op LIKE 'aten::cudnn_conv%'
  OR k.op LIKE 'aten::_convolution%' OR k.op IN ('aten::addmm', 'aten::mm', 'aten::bmm',
  'aten::matmul', 'aten::linear', 'aten::baddbmm', 'aten::addbmm', 'aten::_scaled_mm')
  OR k.op LIKE 'aten::%lstm%' OR k.op LIKE 'aten::%gru%' OR k.op LIKE 'aten::_cudnn_rnn%'))sql";

// Collective (communication) kernels: NCCL/RCCL/HCCL/gloo names, or launched by a c10d or
// NCCL op. They use one block per channel by design, so occupancy and grid size say nothing.
constexpr const char* kCollective = R"sql((k.name LIKE '%nccl%' OR k.name LIKE '%rccl%'
  OR k.name LIKE '%hccl%' OR k.name LIKE '%gloo%' OR k.op LIKE 'nccl:%' OR k.op LIKE 'c10d::%'
  OR k.op LIKE '%record_param_comms%'))sql";

std::string kernels_with_ops() {
  // Kernels grouped by (name, launching op, op input types) by the GPU analyzer
  // (analyzers/gpu/kernel_groups.cpp): a few hundred rows however many launches; the name
  // patterns (two dozen LIKEs) are tested once per group.
  return R"sql(kg AS (SELECT name, op, types, kernels AS n, dur_ns, occ_ns, occ_weight, bps_sum,
         bps_n FROM kernel_groups WHERE run_id = ?1),
ko AS (SELECT k.*, CASE WHEN )sql" +
         std::string(kTensorCoreKernel) + R"sql( THEN 1 ELSE 0 END AS tc,
         CASE WHEN k.op IS NOT NULL AND )sql" +
         std::string(kEligibleOp) + R"sql( THEN 1 ELSE 0 END AS eligible,
         CASE WHEN )sql" +
         std::string(kCollective) + R"sql( THEN 1 ELSE 0 END AS coll, )sql" + std::string(kOrigin) +
         R"sql( AS origin
       FROM kg k))sql";
}

}  // namespace

void declare_gpu_facts(std::vector<FactType>& out) {
  using T = SlotType;
  out.push_back(FactType{
      "api",
      "Host runtime/driver API calls aggregated by name (CUDA runtime and driver, AscendCL). "
      "`category` classifies host synchronisation, stream waits, launches, copies, allocation and "
      "compilation.",
      "one per API name",
      {
          {"name", T::String, "",
           "API name (cudaStreamSynchronize, AscendCL@aclrtSynchronizeStream, ...)", ""},
          {"category", T::Symbol, "",
           "sync (blocks the host), wait (orders streams on the GPU; the host goes on), launch, "
           "memcpy, "
           "malloc, compile or other",
           "other"},
          {"count", T::Integer, "count", "calls", ""},
          {"total_us", T::Float, "us", "summed call duration", ""},
          {"max_us", T::Float, "us", "longest call", ""},
          {"share", T::Float, "ratio",
           "share of the run's base: total_us / run base_units / run base_us", ""},
      },
      // Per-name totals from the GPU analyzer's api_totals (SQL over the calls would sort them).
      R"sql(WITH {common},
a AS (SELECT name, calls, dur_ns, max_ns FROM api_totals WHERE run_id = ?1)
SELECT name,
  CASE WHEN name LIKE '%StreamSynchronize%' OR name LIKE '%DeviceSynchronize%'
         OR name LIKE '%EventSynchronize%'
         OR name LIKE '%CtxSynchronize%' OR name LIKE '%aclrtSynchronize%' THEN 'sync'
       WHEN name LIKE '%StreamWaitEvent%' THEN 'wait'
       WHEN name LIKE '%Compile%' THEN 'compile'
       WHEN name LIKE '%LaunchKernel%' OR name LIKE '%LaunchCooperativeKernel%' THEN 'launch'
       WHEN name LIKE '%Memcpy%' THEN 'memcpy'
       WHEN name LIKE '%Malloc%' OR name LIKE 'cudaFree%' OR name LIKE 'cuMemFree%'
         OR name LIKE '%aclrtFree%' THEN 'malloc'
       ELSE 'other' END AS category,
  sum(calls) AS count, sum(dur_ns) / 1000.0 AS total_us, max(max_ns) / 1000.0 AS max_us,
  sum(dur_ns) / 1000.0 / (SELECT units FROM base) / nullif((SELECT us FROM base), 0) AS share
FROM a GROUP BY name ORDER BY total_us DESC LIMIT 20000)sql"});

  out.push_back(FactType{
      "kernel",
      "GPU kernels aggregated by kernel name.",
      "one per kernel name (at most 20000, longest total first)",
      {
          {"name", T::String, "", "kernel name", ""},
          {"count", T::Integer, "count", "launches", ""},
          {"total_us", T::Float, "us", "summed duration", ""},
          {"avg_us", T::Float, "us", "mean duration", ""},
          {"max_us", T::Float, "us", "longest launch", ""},
          {"share", T::Float, "ratio", "share of summed kernel time", ""},
          {"avg_occupancy", T::Float, "ratio", "mean estimated achieved occupancy as recorded", ""},
          {"registers", T::Integer, "count", "registers per thread (max over launches)", ""},
          {"tiny", T::Integer, "count", "launches shorter than 10 us", ""},
      },
      // Per-name totals from the GPU analyzer's kernel_totals, one row per name; grouped again
      // so that SQLite orders ties as it did when the query grouped the launches itself.
      R"sql(WITH k AS (SELECT name, kernels, dur_ns, max_ns, tiny, occ_sum, occ_n, registers
           FROM kernel_totals WHERE run_id = ?1)
SELECT name, sum(kernels) AS count, sum(dur_ns) / 1000.0 AS total_us,
  CAST(sum(dur_ns) AS REAL) / sum(kernels) / 1000.0 AS avg_us, max(max_ns) / 1000.0 AS max_us,
  CAST(sum(dur_ns) AS REAL) / nullif((SELECT sum(dur_ns) FROM k), 0) AS share,
  sum(occ_sum) / nullif(sum(occ_n), 0) AS avg_occupancy, max(registers) AS registers,
  sum(tiny) AS tiny
FROM k GROUP BY name ORDER BY total_us DESC LIMIT 20000)sql"});

  out.push_back(FactType{
      "memcpy",
      "GPU memory copies and sets aggregated by name. Direction and pageability come from the "
      "copy kind or the activity name (e.g. `Memcpy HtoD (Pageable -> Device)`); `api` is the "
      "host call that issued it (joined on the correlation id), when recorded.",
      "one per (name, direction, pageable, api)",
      {
          {"name", T::String, "", "activity name", ""},
          {"direction", T::Symbol, "", "HtoD, DtoH, DtoD, HtoH, PtoP, memset or other", "other"},
          {"pageable", T::Symbol, "", "yes when host memory was pageable", "no"},
          {"api", T::String, "", "issuing host API (cudaMemcpyAsync, ...) or empty", ""},
          {"async", T::Symbol, "",
           "yes when issued by an ...Async call, no when by a blocking one, unknown", ""},
          {"count", T::Integer, "count", "operations", ""},
          {"total_us", T::Float, "us", "summed duration", ""},
          {"bytes", T::Integer, "bytes", "summed bytes", ""},
      },
      // Copies per (name, kind, copy kind, issuing call) from the GPU analyzer's copy_groups.
      R"sql(WITH m AS (
  SELECT name, count, dur_ns, bytes, api,
    CASE WHEN kind = 'memset' THEN 'memset'
         WHEN name LIKE '%HtoD%' OR memcpy_kind LIKE '%HtoD%' THEN 'HtoD'
         WHEN name LIKE '%DtoH%' OR memcpy_kind LIKE '%DtoH%' THEN 'DtoH'
         WHEN name LIKE '%DtoD%' OR memcpy_kind LIKE '%DtoD%' THEN 'DtoD'
         WHEN name LIKE '%HtoH%' OR memcpy_kind LIKE '%HtoH%' THEN 'HtoH'
         WHEN name LIKE '%PtoP%' OR memcpy_kind LIKE '%PtoP%' THEN 'PtoP'
         ELSE 'other' END AS direction,
    CASE WHEN name LIKE '%Pageable%' OR memcpy_kind LIKE '%Pageable%' THEN 'yes' ELSE 'no' END AS pageable
  FROM copy_groups WHERE run_id = ?1)
SELECT name, direction, pageable, coalesce(api, '') AS api,
  CASE WHEN api IS NULL THEN 'unknown' WHEN api LIKE '%Async%' THEN 'yes' ELSE 'no' END AS async,
  sum(count) AS count, sum(dur_ns) / 1000.0 AS total_us, coalesce(sum(bytes), 0) AS bytes
FROM m GROUP BY name, direction, pageable, api ORDER BY total_us DESC LIMIT 20000)sql"});

  out.push_back(FactType{
      "launch",
      "Kernel-launch profile of a GPU run: how many kernels are tiny (< 10 us) and how busy the "
      "GPU is. Absent when the run has no kernels.",
      "one per run with GPU kernels",
      {
          {"kernels", T::Integer, "count", "kernel launches", ""},
          {"tiny_kernels", T::Integer, "count", "launches shorter than 10 us", ""},
          {"tiny_share", T::Float, "ratio", "tiny_kernels / kernels", ""},
          {"median_kernel_us", T::Float, "us",
           "median kernel duration (several ranks: the median of the ranks' medians)", ""},
          {"gpu_busy_us", T::Float, "us", "summed kernel, memcpy and memset time", ""},
          {"launch_api_us", T::Float, "us", "summed host time in kernel-launch API calls", ""},
          {"wall_us", T::Float, "us", "run wall span", ""},
      },
      // gpu_launch_profile has a row per rank; the ranks' counts and times are summed.
      R"sql(WITH {common},
p AS (SELECT sum(kernels) AS kernels, sum(tiny) AS tiny, sum(busy_ns) AS busy_ns,
        sum(launch_api_ns) AS launch_api_ns FROM gpu_launch_profile WHERE run_id = ?1),
x AS MATERIALIZED (SELECT median_ns FROM gpu_launch_profile WHERE run_id = ?1 AND kernels > 0)
SELECT kernels, tiny AS tiny_kernels, CAST(tiny AS REAL) / kernels AS tiny_share,
  )sql" + median_of("median_ns") +
          R"sql( / 1000.0 AS median_kernel_us, busy_ns / 1000.0 AS gpu_busy_us,
  launch_api_ns / 1000.0 AS launch_api_us,
  ((SELECT e FROM span) - (SELECT s FROM span)) / 1000.0 AS wall_us
FROM p WHERE kernels > 0)sql"});

  out.push_back(FactType{
      "gpu_launch",
      "Kernel-launch latency per rank (analyzers/gpu, HTA's kernel launch stats): launch API "
      "calls, calls slower than 50 us, and the delay from a launch call's end to its GPU "
      "activity's start, with the count above 100 us (HTA's outlier cut-offs).",
      "one per rank with GPU activity",
      {
          {"rank", T::Integer, "", "rank", ""},
          {"launches", T::Integer, "count", "kernel-launch API calls", ""},
          {"launch_avg_us", T::Float, "us", "mean launch call duration", ""},
          {"slow_launches", T::Integer, "count", "launch calls longer than 50 us", ""},
          {"linked", T::Integer, "count", "GPU activities linked to their launch call", ""},
          {"delay_avg_us", T::Float, "us", "mean launch-to-start delay", ""},
          {"delay_max_us", T::Float, "us", "longest launch-to-start delay", ""},
          {"delayed", T::Integer, "count", "activities starting > 100 us after their launch", ""},
          {"delayed_share", T::Float, "ratio", "delayed / linked", ""},
          {"ranks", T::Integer, "count", "ranks with GPU activity", "1"},
          {"delayed_share_median", T::Float, "ratio", "median delayed_share over ranks", ""},
      },
      R"sql(WITH x AS MATERIALIZED (
  SELECT rank, launches, coalesce(launch_avg_us, 0.0) AS launch_avg_us, slow_launches, linked,
    coalesce(delay_avg_us, 0.0) AS delay_avg_us, coalesce(delay_max_us, 0.0) AS delay_max_us,
    delayed, CASE WHEN linked > 0 THEN CAST(delayed AS REAL) / linked ELSE 0.0 END AS delayed_share
  FROM gpu_launch_stats WHERE run_id = ?1)
SELECT x.*, (SELECT count(*) FROM x) AS ranks, )sql" +
          median_of("delayed_share") + R"sql( AS delayed_share_median
FROM x ORDER BY rank)sql"});

  out.push_back(FactType{
      "gpu_time",
      "GPU time of one rank as Holistic Trace Analysis defines it (docs/gpu-definitions.md), "
      "over the rank's whole trace, every step kept: the temporal breakdown (window from the "
      "first to the last GPU activity; compute = union of computation kernels, non-compute = "
      "the rest of the busy time, idle = window - busy), the communication/computation overlap "
      "(get_comm_comp_overlap) and idle time by cause per stream (get_idle_time_breakdown: host "
      "wait = the launch call started after the previous activity on the stream ended; kernel "
      "wait = a shorter gap than 30 us; other), summed over streams.",
      "one per rank with GPU activity",
      {
          {"rank", T::Integer, "", "rank", ""},
          {"ranks", T::Integer, "count", "ranks with GPU activity", "1"},
          {"steps", T::Float, "count", "steps of this rank (1 without steps)", "1.0"},
          {"step_us", T::Float, "us", "mean step of this rank; the run's base without steps", ""},
          {"window_us", T::Float, "us", "first GPU activity start to last end", ""},
          {"busy_us", T::Float, "us", "union of all activities", ""},
          {"compute_us", T::Float, "us", "union of computation kernels", ""},
          {"non_compute_us", T::Float, "us", "busy_us - compute_us (communication, copies)", ""},
          {"idle_us", T::Float, "us", "window_us - busy_us", ""},
          {"compute_share", T::Float, "ratio", "compute_us / window_us (HTA compute_time_pctg)",
           ""},
          {"non_compute_share", T::Float, "ratio", "non_compute_us / window_us", ""},
          {"idle_share", T::Float, "ratio", "idle_us / window_us (HTA idle_time_pctg)", ""},
          {"idle_share_median", T::Float, "ratio", "median idle_share over ranks", ""},
          {"comm_us", T::Float, "us", "union of communication kernels", ""},
          {"overlap_us", T::Float, "us", "communication overlapped by computation", ""},
          {"overlap_ratio", T::Float, "ratio",
           "overlap_us / comm_us (HTA comp_comm_overlap_pctg); 0 without communication", ""},
          {"comm_exposed_us", T::Float, "us", "comm_us - overlap_us", ""},
          {"streams", T::Integer, "count", "streams with activity", ""},
          {"gaps", T::Integer, "count", "gaps between consecutive activities of a stream", ""},
          {"host_wait_us", T::Float, "us", "stream idle time waiting for the CPU's launch", ""},
          {"kernel_wait_us", T::Float, "us", "short gaps between back-to-back activities", ""},
          {"other_wait_us", T::Float, "us", "the rest of the streams' idle time", ""},
          {"host_wait_share", T::Float, "ratio", "host_wait_us / summed stream idle time", ""},
          {"kernel_wait_share", T::Float, "ratio", "kernel_wait_us / summed stream idle time", ""},
          {"other_wait_share", T::Float, "ratio", "other_wait_us / summed stream idle time", ""},
          {"kernel_wait_cutoff_us", T::Float, "us", "gap below which idle is kernel wait", ""},
      },
      R"sql(WITH {common},
x AS MATERIALIZED (
  SELECT g.rank, coalesce(rs.n, 1.0) AS steps, coalesce(rs.mean, (SELECT us FROM base)) AS step_us,
    window_us, busy_us, compute_us, busy_us - compute_us AS non_compute_us, idle_us,
    compute_us / nullif(window_us, 0) AS compute_share,
    (busy_us - compute_us) / nullif(window_us, 0) AS non_compute_share,
    coalesce(idle_us / nullif(window_us, 0), 0.0) AS idle_share, comm_us, overlap_us,
    coalesce(overlap_us / nullif(comm_us, 0), 0.0) AS overlap_ratio,
    comm_us - overlap_us AS comm_exposed_us, streams, gaps, host_wait_us, kernel_wait_us,
    other_wait_us,
    host_wait_us / nullif(host_wait_us + kernel_wait_us + other_wait_us, 0) AS host_wait_share,
    kernel_wait_us / nullif(host_wait_us + kernel_wait_us + other_wait_us, 0) AS kernel_wait_share,
    other_wait_us / nullif(host_wait_us + kernel_wait_us + other_wait_us, 0) AS other_wait_share,
    kernel_wait_cutoff_us
  FROM gpu_time_breakdown g LEFT JOIN rankstep rs ON rs.rank = g.rank WHERE g.run_id = ?1)
SELECT x.*, (SELECT count(*) FROM x) AS ranks, )sql" +
          median_of("idle_share") + R"sql( AS idle_share_median
FROM x ORDER BY rank)sql"});
  out.push_back(FactType{
      "gpu_kernel",
      "GPU kernels per (kernel name, launching CPU op) with duration-weighted estimated "
      "achieved occupancy (`est. achieved occupancy %` of Kineto, 0..100 as recorded) and "
      "Tensor-Core use by kernel name.",
      "one per (kernel name, op), at most 20000, longest first",
      {
          {"name", T::String, "", "kernel name", ""},
          {"op", T::String, "", "launching CPU op (aten::...), empty when not linked", ""},
          {"count", T::Integer, "count", "launches", ""},
          {"total_us", T::Float, "us", "summed duration", ""},
          {"avg_us", T::Float, "us", "mean duration", ""},
          {"share", T::Float, "ratio", "share of summed kernel time", ""},
          {"occupancy", T::Float, "percent",
           "duration-weighted est. achieved occupancy (-1 unknown)", "-1.0"},
          {"blocks_per_sm", T::Float, "", "mean blocks per SM (-1 unknown)", "-1.0"},
          {"tensor_core", T::Symbol, "", "yes when the kernel name marks a Tensor-Core kernel",
           "no"},
          {"eligible", T::Symbol, "", "yes when launched by a Tensor-Core eligible op", "no"},
          {"collective", T::Symbol, "",
           "yes for communication kernels (NCCL, RCCL, HCCL, gloo names, or launched by a c10d "
           "or nccl: op)",
           "no"},
          {"origin", T::Symbol, "",
           "who wrote the kernel, from its name: cublas (cuBLAS/cuBLASLt), cudnn, cutlass, nccl, "
           "rccl, tensile (rocBLAS), hipblaslt, miopen, triton, pytorch (PyTorch's own kernels) "
           "or user",
           "user"},
          {"library", T::Symbol, "",
           "yes when a library or PyTorch chose the kernel's launch configuration (every origin "
           "but triton and user): occupancy and grid size are not the user's to change",
           "no"},
      },
      "WITH " + kernels_with_ops() + R"sql(
SELECT name, coalesce(op, '') AS op, sum(n) AS count, sum(dur_ns) / 1000.0 AS total_us,
  CAST(sum(dur_ns) AS REAL) / sum(n) / 1000.0 AS avg_us,
  CAST(sum(dur_ns) AS REAL) / (SELECT sum(dur_ns) FROM kg) AS share,
  coalesce(sum(occ_ns) / nullif(sum(occ_weight), 0), -1.0) AS occupancy,
  coalesce(CAST(sum(bps_sum) AS REAL) / nullif(sum(bps_n), 0), -1.0) AS blocks_per_sm,
  CASE WHEN max(tc) = 1 THEN 'yes' ELSE 'no' END AS tensor_core,
  CASE WHEN max(eligible) = 1 THEN 'yes' ELSE 'no' END AS eligible,
  CASE WHEN max(coll) = 1 THEN 'yes' ELSE 'no' END AS collective, min(origin) AS origin,
  CASE WHEN min(origin) IN ('triton', 'user') THEN 'no' ELSE 'yes' END AS library
FROM ko GROUP BY name, op ORDER BY total_us DESC LIMIT 20000)sql"});

  out.push_back(FactType{
      "tensor_core",
      "Tensor-Core use of a GPU run (tb_plugin rule 6): kernel time of Tensor-Core kernels and "
      "of kernels launched by Tensor-Core eligible ops, split by the ops' input precision.",
      "one per run with GPU kernels",
      {
          {"compute_major", T::Integer, "",
           "compute capability major as the trace states it (0 unknown; on AMD the gfx major, "
           "not a CUDA generation)",
           ""},
          {"vendor", T::Symbol, "", "nvidia, amd or unknown (hardware_spec)", "unknown"},
          {"arch", T::String, "", "architecture of the matched part (volta, ampere, cdna2, ...)",
           ""},
          {"matrix_fp16", T::Symbol, "", "the matrix units run FP16: yes, no or unknown",
           "unknown"},
          {"matrix_bf16", T::Symbol, "", "the matrix units run BF16: yes, no or unknown",
           "unknown"},
          {"matrix_tf32", T::Symbol, "", "the matrix units run TF32: yes, no or unknown",
           "unknown"},
          {"mfma_us", T::Float, "us", "time in AMD matrix-core (MFMA) kernels", ""},
          {"kernel_us", T::Float, "us", "summed kernel time", ""},
          {"tc_us", T::Float, "us", "time in Tensor-Core kernels", ""},
          {"eligible_us", T::Float, "us", "time in kernels launched by eligible ops", ""},
          {"eligible_fp32_us", T::Float, "us",
           "eligible-op kernel time on FP32 inputs in non-Tensor-Core kernels (FP32 from the "
           "op's recorded input types, else from an sgemm kernel name)",
           ""},
          {"eligible_share", T::Float, "ratio", "eligible_us / kernel_us", ""},
          {"fp32_share", T::Float, "ratio", "eligible_fp32_us / kernel_us", ""},
          {"tc_share", T::Float, "ratio", "tc_us / kernel_us", ""},
          {"top_op", T::String, "", "eligible op with the most FP32 non-Tensor-Core time", ""},
      },
      "WITH " + kernels_with_ops() + R"sql(,
hw AS (SELECT max(CAST(compute_capability AS INTEGER)) AS major FROM hardware WHERE run_id = ?1),
spec AS (SELECT coalesce(vendor, 'unknown') AS vendor, coalesce(arch, '') AS arch,
           coalesce(matrix_fp16, 'unknown') AS fp16, coalesce(matrix_bf16, 'unknown') AS bf16,
           coalesce(matrix_tf32, 'unknown') AS tf32 FROM hardware_specs WHERE run_id = ?1 LIMIT 1),
f32 AS (SELECT op, sum(dur_ns) AS ns FROM ko WHERE eligible = 1 AND tc = 0
        AND (types LIKE '%"float"%' OR types LIKE '%"float32"%'
             -- Without recorded input types (record_shapes=False) an "sgemm" kernel (cuBLAS's
             -- and cuDNN's single-precision GEMMs, volta_sgemm_*, implicit_convolve_sgemm) is
             -- FP32 on CUDA cores by its name.
             OR ((types IS NULL OR types = '') AND name GLOB '*sgemm*')) GROUP BY op)
SELECT coalesce((SELECT major FROM hw), 0) AS compute_major,
  coalesce((SELECT vendor FROM spec), 'unknown') AS vendor, coalesce((SELECT arch FROM spec), '') AS arch,
  coalesce((SELECT fp16 FROM spec), 'unknown') AS matrix_fp16,
  coalesce((SELECT bf16 FROM spec), 'unknown') AS matrix_bf16,
  coalesce((SELECT tf32 FROM spec), 'unknown') AS matrix_tf32,
  sum(CASE WHEN tc = 1 AND (name LIKE '%mfma%' OR name GLOB '*_MI[0-9]*x[0-9]*') THEN dur_ns ELSE 0 END) / 1000.0 AS mfma_us,
  sum(dur_ns) / 1000.0 AS kernel_us,
  sum(CASE WHEN tc = 1 THEN dur_ns ELSE 0 END) / 1000.0 AS tc_us,
  sum(CASE WHEN eligible = 1 THEN dur_ns ELSE 0 END) / 1000.0 AS eligible_us,
  coalesce((SELECT sum(ns) FROM f32), 0) / 1000.0 AS eligible_fp32_us,
  CAST(sum(CASE WHEN eligible = 1 THEN dur_ns ELSE 0 END) AS REAL) / sum(dur_ns) AS eligible_share,
  CAST(coalesce((SELECT sum(ns) FROM f32), 0) AS REAL) / sum(dur_ns) AS fp32_share,
  CAST(sum(CASE WHEN tc = 1 THEN dur_ns ELSE 0 END) AS REAL) / sum(dur_ns) AS tc_share,
  (SELECT op FROM f32 ORDER BY ns DESC LIMIT 1) AS top_op
FROM ko HAVING sum(n) > 0)sql"});
}

}  // namespace perfsage::analyzers
