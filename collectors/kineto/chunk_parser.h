// Parsing one chunk of a trace's event array (a run of whole events) as a single simdjson
// On-Demand document into a batch of records, and handing a batch to the store. Shared by the
// sequential reader and the parallel parsers of trace_ingest.cpp.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>

#include "collectors/kineto/event_mapper.h"
#include "collectors/kineto/json_scan.h"
#include "collectors/kineto/trace_buffer.h"
#include "collectors/kineto/trace_event.h"
#include "store/run_writer.h"

namespace perfsage::collectors::kineto {

// One parser's working state: simdjson's parser, the event being read, a copy buffer.
struct ChunkReader {
  simdjson::ondemand::parser parser;
  TraceEvent ev;
  std::string buf;
};

// Parses `chunk` into `batch`; false when an element is not a mappable event object (the
// caller then reads the chunk event by event). In place when `allow_in_place` and possible:
// the bytes just outside the chunk are bracketed for the parse and restored.
bool parse_array_chunk(TraceBuffer& buffer, ChunkReader& r, EventMapper& mapper, Span chunk,
                       bool allow_in_place, Batch& batch, int64_t& elements);

// Adds a batch's records to the run.
void write_batch(store::RunWriter& out, Batch& b);

}  // namespace perfsage::collectors::kineto
