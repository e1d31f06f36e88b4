// One Chrome-trace event read with simdjson On-Demand into flat fields: the event keys Kineto
// writes, the args perfsage keeps as columns, and every other arg as compact JSON text.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perfsage::collectors::kineto {

struct TraceEvent {
  // Views into the parser's buffers: valid until the parser reads its next document.
  std::string_view ph, cat, name, bp;
  std::optional<int64_t> pid, tid, id;
  std::string_view pid_text, tid_text, id_text;  // when pid / tid / id are strings
  std::optional<int64_t> ts_ns, dur_ns;          // microsecond text converted exactly to ns

  // args kept as columns
  std::optional<int64_t> external_id, correlation, device, stream, registers, shared_mem, bytes;
  std::optional<double> blocks_per_sm, warps_per_sm, occupancy, bandwidth_gbps;
  std::string grid, block, input_dims, input_types, copy_kind;  // compact JSON / text, "" = absent
  // Remaining args as a compact JSON object ("" when there are none).
  std::string extra;

  void clear();
};

// Why an event could not be read: the simdjson error and the field being read.
struct EventError {
  simdjson::error_code code = simdjson::SUCCESS;
  const char* field = "";
  explicit operator bool() const { return code != simdjson::SUCCESS; }
  std::string message() const;
};

// Reads one event object. Unknown keys are skipped; args not kept as columns go to `extra`.
EventError read_event(simdjson::ondemand::object obj, TraceEvent& ev);

}  // namespace perfsage::collectors::kineto
