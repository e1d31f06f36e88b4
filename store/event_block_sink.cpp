#include "store/event_block_sink.h"

namespace perfsage::store {
namespace {

// start + dur without signed overflow on absurd values (SQLite itself would turn it into a REAL).
int64_t end_of(int64_t start, int64_t dur) {
  return static_cast<int64_t>(static_cast<uint64_t>(start) + static_cast<uint64_t>(dur));
}

void put(EventBlockBuilder& b, int col, const OptInt& v) {
  if (v) {
    b.set_int(col, *v);
  } else {
    b.set_null(col);
  }
}
void put(EventBlockBuilder& b, int col, const OptReal& v) {
  if (v) {
    b.set_real(col, *v);
  } else {
    b.set_null(col);
  }
}
void put(EventBlockBuilder& b, int col, const OptText& v) {
  if (v) {
    b.set_text(col, *v);
  } else {
    b.set_null(col);
  }
}

}  // namespace

EventBlockSink::EventBlockSink(Database& db)
    : db_(db), insert_(db.prepare("INSERT INTO event_blocks VALUES(?1,?2,?3,?4,?5,?6,?7,?8)")) {}

EventBlockBuilder& EventBlockSink::builder(const EventSchema& schema, int64_t run_id,
                                           const std::string& kind) {
  // Consecutive events mostly share a kind: skip the map lookup for them.
  if (last_ != nullptr && std::get<0>(*last_key_) == &schema && std::get<1>(*last_key_) == run_id &&
      std::get<2>(*last_key_) == kind) {
    return *last_;
  }
  auto it = open_.find(Key{&schema, run_id, kind});
  if (it == open_.end())
    it = open_.emplace(Key{&schema, run_id, kind}, EventBlockBuilder(schema)).first;
  last_key_ = &it->first;
  last_ = &it->second;
  return it->second;
}

void EventBlockSink::row_done(const Key& key, EventBlockBuilder& b) {
  b.end_row();
  if (b.rows() >= kBlockRows || b.bytes() >= kBlockBytes) write(key, b);
}

void EventBlockSink::add(int64_t run_id, const HostEvent& e) {
  auto& b = builder(host_event_schema(), run_id, e.kind);
  b.note_span(e.start_ns, end_of(e.start_ns, e.dur_ns));
  b.set_int(1, e.rank);
  b.set_text(3, e.name);
  put(b, 4, e.pid);
  put(b, 5, e.tid);
  b.set_int(6, e.start_ns);
  b.set_int(7, e.dur_ns);
  put(b, 8, e.external_id);
  put(b, 9, e.correlation);
  put(b, 10, e.input_dims);
  put(b, 11, e.input_types);
  put(b, 12, e.args);
  row_done(*last_key_, b);
}

void EventBlockSink::add(int64_t run_id, const DeviceEvent& e) {
  auto& b = builder(device_event_schema(), run_id, e.kind);
  b.note_span(e.start_ns, end_of(e.start_ns, e.dur_ns));
  b.set_int(1, e.rank);
  b.set_text(3, e.name);
  put(b, 4, e.device);
  put(b, 5, e.stream);
  b.set_int(6, e.start_ns);
  b.set_int(7, e.dur_ns);
  put(b, 8, e.correlation);
  put(b, 9, e.external_id);
  put(b, 10, e.grid);
  put(b, 11, e.block);
  put(b, 12, e.registers);
  put(b, 13, e.shared_mem);
  put(b, 14, e.blocks_per_sm);
  put(b, 15, e.warps_per_sm);
  put(b, 16, e.occupancy);
  put(b, 17, e.bytes);
  put(b, 18, e.bandwidth_gbps);
  put(b, 19, e.memcpy_kind);
  put(b, 20, e.args);
  row_done(*last_key_, b);
}

void EventBlockSink::add_row(const EventSchema& schema, Statement& row) {
  auto& b = builder(schema, row.int64(kRunIdColumn), row.text(kKindColumn));
  // Both event tables have start_ns and dur_ns at columns 6 and 7.
  b.note_span(row.int64(6), end_of(row.int64(6), row.int64(7)));
  for (int col = 0; col < static_cast<int>(schema.columns.size()); ++col) {
    if (is_key_column(col)) continue;
    if (row.is_null(col)) {
      b.set_null(col);
      continue;
    }
    switch (schema.columns[static_cast<size_t>(col)].type) {
      case ColumnType::kInt:
        b.set_int(col, row.int64(col));
        break;
      case ColumnType::kReal:
        b.set_real(col, row.real(col));
        break;
      case ColumnType::kText:
        b.set_text(col, row.text_view(col));
        break;
    }
  }
  row_done(*last_key_, b);
}

void EventBlockSink::write(const Key& key, EventBlockBuilder& b) {
  size_t rows = b.rows();
  int64_t lo = b.min_start(), hi = b.max_end();
  std::string data = b.finish();
  insert_.bind(1, std::get<1>(key))
      .bind_static(2, std::get<0>(key)->table)
      .bind_static(3, std::get<2>(key))
      .bind(4, ++seq_)
      .bind(5, static_cast<int64_t>(rows))
      .bind(6, lo)
      .bind(7, hi)
      .bind_blob_static(8, data);
  insert_.run();
}

void EventBlockSink::flush() {
  for (auto& [key, b] : open_)
    if (b.rows() > 0) write(key, b);
  open_.clear();
  last_ = nullptr;
  last_key_ = nullptr;
}

}  // namespace perfsage::store
