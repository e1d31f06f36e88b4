// What a parser thread hands the writer for one chunk of events. The kinds with many events in
// the chunk (CPU ops and runtime calls, typically) are already encoded as column blocks, while
// the chunk's records are still in the parser's cache, which leaves the writer only their
// SQLite inserts. Kinds with few events stay records, which the writer gathers across chunks
// into full blocks, so rare kinds do not become thousands of tiny blocks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectors/kineto/event_mapper.h"
#include "store/event_block.h"
#include "store/run_writer.h"

namespace perfsage::collectors::kineto {

struct KindBlock {
  const store::EventSchema* schema = nullptr;
  std::string kind;
  store::SealedBlock block;
};

struct SealedChunk {
  std::vector<KindBlock> blocks;  // in order of the kind's first event in the chunk
  Batch records;                  // the events of the other kinds, and the steps
  void clear() {
    blocks.clear();
    records.clear();
  }
};

// One per parser thread: keeps a builder per table and kind, so their buffers are reused from
// chunk to chunk.
class ChunkBlockEncoder {
 public:
  // No block smaller than this is encoded by a parser, whatever the share.
  static constexpr size_t kMinBlockRows = 64;

  // A kind is encoded when it holds at least `min_share` of the chunk's events.
  explicit ChunkBlockEncoder(double min_share) : min_share_(min_share) {}

  // Encodes the events of `parsed` whose kind reaches the share into out.blocks and copies the
  // others, and the steps, into out.records. The parser's own batch stays in its
  // cache; the writer reads only what it must store itself.
  void encode(const Batch& parsed, SealedChunk& out);

 private:
  struct Open {
    const store::EventSchema* schema;
    std::string kind;
    store::EventBlockBuilder builder;
    size_t count = 0;  // events of the kind in the current chunk
  };
  uint32_t find(const store::EventSchema& schema, const std::string& kind);
  // Appends the rows of kinds that reach min_rows_ (this chunk's threshold) to their builders,
  // copies the others.
  template <class Event, class Append>
  void encode_rows(const Slots<Event>& rows, const std::vector<uint32_t>& kind_of,
                   Slots<Event>& others, Append append);

  double min_share_;
  size_t min_rows_ = 0;
  std::vector<Open> open_;
  std::vector<uint32_t> order_;  // indices into open_, in order of first use in the chunk
  std::vector<uint32_t> host_of_, device_of_;  // per record: its index into open_
  uint32_t last_ = UINT32_MAX;
};

// Stores a chunk's blocks, then its other records, after those of the chunks before it.
void write_sealed_chunk(store::RunWriter& out, SealedChunk& chunk);

}  // namespace perfsage::collectors::kineto
