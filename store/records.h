// Raw records as collectors produce them; one struct per raw table of the store.
// Times are integer nanoseconds since the epoch (or since the trace's base time).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perfsage::store {

using OptInt = std::optional<int64_t>;
using OptReal = std::optional<double>;
using OptText = std::optional<std::string>;

// One task execution on an Ascend device (op_summary / kernel_details row).
struct OpTask {
  int64_t rank = 0;
  OptInt device_id, step, model_id, stream_id, task_id;
  std::string name, type, core_type;  // core_type: AI_CORE, AI_VECTOR_CORE, AI_CPU, MIX_AIC, ...
  OptText op_state;
  OptInt start_ns;
  int64_t dur_ns = 0;
  OptInt wait_ns, block_dim, mix_block_dim;
  OptText input_shapes, input_dtypes, input_formats, output_shapes, output_dtypes, output_formats;
  OptReal aicore_time_us, aiv_time_us, cube_fops, vector_fops;
  OptReal mac_ratio, vec_ratio, scalar_ratio, mte1_ratio, mte2_ratio, mte3_ratio, fixpipe_ratio;
  OptReal read_bytes, write_bytes;
  OptText metrics;  // other metric columns as a JSON object
};

// A host-side span: framework op, annotation, runtime/driver API call, Python frame.
struct HostEvent {
  int64_t rank = 0;
  std::string kind;  // cpu_op, user_annotation, runtime, driver, python, api, overlap
  std::string name;
  OptInt pid, tid;
  int64_t start_ns = 0, dur_ns = 0;
  OptInt external_id, correlation;
  OptText input_dims, input_types, args;
};

// A device-side activity: kernel, memcpy, memset, sync, GPU annotation.
struct DeviceEvent {
  int64_t rank = 0;
  std::string kind;  // kernel, memcpy, memset, sync, gpu_annotation, range (CUPTI counters)
  std::string name;
  OptInt device, stream;
  int64_t start_ns = 0, dur_ns = 0;
  OptInt correlation, external_id;
  OptText grid, block;
  OptInt registers, shared_mem;
  OptReal blocks_per_sm, warps_per_sm, occupancy;
  OptInt bytes;
  OptReal bandwidth_gbps;
  OptText memcpy_kind, args;
};

struct Step {
  int64_t rank = 0;
  int64_t step = 0;
  std::string source;  // ProfilerStep, step_trace, cluster_step_trace_time, ...
  OptInt start_ns, dur_ns;
  OptReal computing_us, comm_us, comm_not_overlapped_us, overlapped_us, free_us, dataloader_us,
      optimizer_us, bubble_us;
};

struct Hardware {
  int64_t rank = 0;
  OptInt device_id;
  OptText vendor, name, chip;
  OptInt ai_core_num, aiv_num, sm_count;
  OptReal freq_mhz;
  OptInt memory_bytes;
  OptText compute_capability, props;
};

struct RankInfo {
  int64_t rank = 0;
  OptInt world_size;
  OptText backend, host, source;
};

struct GraphNode {
  std::string graph, name, type;
  OptText engine, kernel_lib;
  OptInt block_dim, fusion_scope;
  OptText pass_name, original_ops;
  OptInt unknown_shape;
  OptText source, attrs;
};

struct GraphEdge {
  std::string graph, src;
  OptInt src_index;
  std::string dst;
  OptInt dst_index;
  bool control = false;
};

struct TensorDesc {
  std::string graph, node, direction;  // direction: input | output
  int64_t idx = 0;
  OptText name, dtype, format, origin_format, shape;
  OptInt bytes;
};

// A graph- or model-level attribute (GE options such as ge.fusionSwitchFile, ONNX opset).
// graph is "" for model-level entries; scope says where it came from (model, graph,
// GlobalOptions, SessionOptions, GraphOptions, ...).
struct GraphAttr {
  std::string graph, scope, key;
  OptText value;
};

struct CommOp {
  int64_t rank = 0;
  OptInt step;
  std::string name;
  OptText type;
  OptInt start_ns, dur_ns;
  OptReal transit_us, wait_us, sync_us, idle_us, bytes, bandwidth_gbps;
  OptText transport, dtype;
  OptReal large_packet_ratio;  // per transport row
  OptText packets;  // per transport row: Size Distribution as JSON [[size_mb, count, ms], ...]
  OptText group;    // communication group (cluster_communication.json)
};

struct FusionStat {
  OptText graph;
  std::string pass, kind;  // kind: graph_fusion | ub_fusion
  OptInt match_times, effect_times;
};

// What one collector did with one file.
struct IngestFile {
  std::string path, collector;
  int64_t records = 0, skipped = 0;
  std::vector<std::string> warnings;
};

}  // namespace perfsage::store
