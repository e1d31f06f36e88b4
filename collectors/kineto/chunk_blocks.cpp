#include "collectors/kineto/chunk_blocks.h"

#include <algorithm>
#include <cmath>

#include "collectors/kineto/chunk_parser.h"
#include "store/event_block_sink.h"

namespace perfsage::collectors::kineto {

uint32_t ChunkBlockEncoder::find(const store::EventSchema& schema, const std::string& kind) {
  // Consecutive events mostly share a kind.
  if (last_ != UINT32_MAX && open_[last_].schema == &schema && open_[last_].kind == kind)
    return last_;
  uint32_t i = 0;
  while (i < open_.size() && !(open_[i].schema == &schema && open_[i].kind == kind)) ++i;
  if (i == open_.size()) open_.push_back(Open{&schema, kind, store::EventBlockBuilder(schema)});
  last_ = i;
  return i;
}

template <class Event, class Append>
void ChunkBlockEncoder::encode_rows(const Slots<Event>& rows, const std::vector<uint32_t>& kind_of,
                                    Slots<Event>& others, Append append) {
  size_t r = 0;
  for (const auto& e : rows) {
    Open& o = open_[kind_of[r++]];
    if (o.count >= min_rows_) {
      append(o.builder, e);
    } else {
      others.next() = e;
    }
  }
}

void ChunkBlockEncoder::encode(const Batch& batch, SealedChunk& chunk) {
  chunk.clear();
  order_.clear();
  for (auto& o : open_) o.count = 0;
  last_ = UINT32_MAX;
  auto count = [&](const store::EventSchema& schema, const std::string& kind) {
    uint32_t i = find(schema, kind);
    if (open_[i].count++ == 0) order_.push_back(i);
    return i;
  };
  const auto& host = store::host_event_schema();
  const auto& device = store::device_event_schema();
  host_of_.clear();
  device_of_.clear();
  const double events = static_cast<double>(batch.host.size() + batch.device.size());
  min_rows_ = std::max(kMinBlockRows, static_cast<size_t>(std::ceil(min_share_ * events)));
  for (const auto& e : batch.host) host_of_.push_back(count(host, e.kind));
  for (const auto& e : batch.device) device_of_.push_back(count(device, e.kind));

  encode_rows(batch.host, host_of_, chunk.records.host, store::append_host_event);
  encode_rows(batch.device, device_of_, chunk.records.device, store::append_device_event);
  chunk.records.steps.assign(batch.steps.begin(), batch.steps.end());
  for (uint32_t i : order_) {
    Open& o = open_[i];
    if (o.count >= min_rows_) chunk.blocks.push_back(KindBlock{o.schema, o.kind, o.builder.seal()});
  }
}

void write_sealed_chunk(store::RunWriter& out, SealedChunk& chunk) {
  for (const auto& b : chunk.blocks) out.add_block(*b.schema, b.block, b.kind);
  write_batch(out, chunk.records);
}

}  // namespace perfsage::collectors::kineto
