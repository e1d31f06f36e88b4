#include "collectors/kineto/chunk_parser.h"

namespace perfsage::collectors::kineto {
namespace od = simdjson::ondemand;

// Parses a chunk as one array document. In place when allowed and possible: the bytes just
// before and after the chunk are a separator or bracket, temporarily replaced by '[' and ']';
// otherwise (parallel parsers, whose neighbouring chunks may share that separator byte, or no
// room for simdjson's padding near the end of the buffer) the chunk is copied, which measured
// as fast. Returns false when an element is not a mappable event object.
bool parse_array_chunk(TraceBuffer& buffer, ChunkReader& r, EventMapper& mapper, Span chunk,
                       bool allow_in_place, Batch& batch, int64_t& elements) {
  const char* start;
  size_t len = chunk.size() + 2, capacity;
  char* data = buffer.data();
  bool in_place = allow_in_place && chunk.begin > 0 &&
                  chunk.end + 1 + simdjson::SIMDJSON_PADDING <= buffer.readable();
  char before = 0, after = 0;
  if (in_place) {
    before = data[chunk.begin - 1];
    after = data[chunk.end];
    data[chunk.begin - 1] = '[';
    data[chunk.end] = ']';
    start = data + chunk.begin - 1;
    capacity = buffer.readable() - (chunk.begin - 1);
  } else {
    r.buf.clear();
    r.buf.reserve(len + simdjson::SIMDJSON_PADDING);
    r.buf.push_back('[');
    r.buf.append(buffer.view().substr(chunk.begin, chunk.size()));
    r.buf.push_back(']');
    start = r.buf.data();
    capacity = r.buf.capacity();
  }
  struct Restore {
    char* data;
    Span c;
    bool active;
    char b, a;
    ~Restore() {
      if (!active) return;
      data[c.begin - 1] = b;
      data[c.end] = a;
    }
  } restore{data, chunk, in_place, before, after};

  od::document doc;
  if (r.parser.iterate(start, len, capacity).get(doc)) return false;
  od::array arr;
  if (doc.get_array().get(arr)) return false;
  for (auto item : arr) {
    od::object obj;
    if (item.get_object().get(obj)) return false;
    if (read_event(obj, r.ev)) return false;
    if (mapper.map(r.ev, batch) != nullptr) return false;
    ++elements;
  }
  return true;
}

void write_batch(store::RunWriter& out, Batch& b) {
  for (const auto& h : b.host) out.add(h);
  for (const auto& d : b.device) out.add(d);
  for (const auto& s : b.steps) out.add(s);
}

}  // namespace perfsage::collectors::kineto
