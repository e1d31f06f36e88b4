// Kineto's top-level keys besides the events: deviceProperties, distributedInfo,
// baseTimeNanoseconds, schemaVersion; and the rank when distributedInfo lacks it.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectors/kineto/json_scan.h"

namespace perfsage::collectors::kineto {

struct GpuProperties {
  std::optional<int64_t> id, sm_count, memory_bytes;
  std::string name, compute_capability, props;  // props: the entry as compact JSON
};

struct TraceMetadata {
  std::optional<int64_t> base_ns, schema_version;
  bool has_device_properties = false;
  std::vector<GpuProperties> gpus;
  bool has_distributed_info = false;
  std::optional<int64_t> rank, world_size;
  std::optional<std::string> backend;
  // Keys present but unreadable: "key: why".
  std::vector<std::string> problems;
};

TraceMetadata read_metadata(std::string_view text,
                            const std::vector<std::pair<std::string, Span>>& keys,
                            simdjson::ondemand::parser& parser);

// The rank the collector will give a trace (TraceIngest::identify: distributedInfo, else the
// file name), told from the first bytes of its text: nullopt when distributedInfo is there but
// not whole, or not there and perhaps written after the events (the file name might say
// another rank), or no rank is named at all.
std::optional<int64_t> rank_from_head(std::string_view head, std::string_view file_name);

// "rank-34.Jul_15...", "trace_rank_3.json", "RANK7" -> the number; nullopt when absent.
std::optional<int64_t> rank_from_file_name(std::string_view file_name);

}  // namespace perfsage::collectors::kineto
