#include "store/event_block_sink.h"

namespace perfsage::store {
namespace {

const std::string kNoKind;  // the kind of blocks of tables without a kind column (op_tasks)

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

// After the row's last column is set and the row ended.
void EventBlockSink::row_done(const Key& key, EventBlockBuilder& b) {
  if (b.rows() >= kBlockRows || b.bytes() >= kBlockBytes) write(key, b);
}

void EventBlockSink::add(int64_t run_id, const HostEvent& e) {
  auto& b = builder(host_event_schema(), run_id, e.kind);
  append_host_event(b, e);
  row_done(*last_key_, b);
}

void EventBlockSink::add(int64_t run_id, const DeviceEvent& e) {
  auto& b = builder(device_event_schema(), run_id, e.kind);
  append_device_event(b, e);
  row_done(*last_key_, b);
}

void append_host_event(EventBlockBuilder& b, const HostEvent& e) {
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
  b.end_row();
}

void append_device_event(EventBlockBuilder& b, const DeviceEvent& e) {
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
  b.end_row();
}

void EventBlockSink::add(int64_t run_id, const OpTask& t) {
  auto& b = builder(op_task_schema(), run_id, kNoKind);
  append_op_task(b, t);
  row_done(*last_key_, b);
}

void append_op_task(EventBlockBuilder& b, const OpTask& t) {
  if (t.start_ns) b.note_span(*t.start_ns, end_of(*t.start_ns, t.dur_ns));
  b.set_int(1, t.rank);
  put(b, 2, t.device_id);
  put(b, 3, t.step);
  put(b, 4, t.model_id);
  put(b, 5, t.stream_id);
  put(b, 6, t.task_id);
  b.set_text(7, t.name);
  b.set_text(8, t.type);
  b.set_text(9, t.core_type);
  put(b, 10, t.op_state);
  put(b, 11, t.start_ns);
  b.set_int(12, t.dur_ns);
  put(b, 13, t.wait_ns);
  put(b, 14, t.block_dim);
  put(b, 15, t.mix_block_dim);
  put(b, 16, t.input_shapes);
  put(b, 17, t.input_dtypes);
  put(b, 18, t.input_formats);
  put(b, 19, t.output_shapes);
  put(b, 20, t.output_dtypes);
  put(b, 21, t.output_formats);
  put(b, 22, t.aicore_time_us);
  put(b, 23, t.aiv_time_us);
  put(b, 24, t.cube_fops);
  put(b, 25, t.vector_fops);
  put(b, 26, t.mac_ratio);
  put(b, 27, t.vec_ratio);
  put(b, 28, t.scalar_ratio);
  put(b, 29, t.mte1_ratio);
  put(b, 30, t.mte2_ratio);
  put(b, 31, t.mte3_ratio);
  put(b, 32, t.fixpipe_ratio);
  put(b, 33, t.read_bytes);
  put(b, 34, t.write_bytes);
  put(b, 35, t.metrics);
  b.end_row();
}

void EventBlockSink::add_row(const EventSchema& schema, Statement& row) {
  const int run_col = EventSchema::kRunIdColumn;
  auto& b = builder(schema, row.int64(run_col),
                    schema.kind_column < 0 ? kNoKind : row.text(schema.kind_column));
  if (!row.is_null(schema.start_column)) {
    int64_t start = row.int64(schema.start_column);
    b.note_span(start, end_of(start, row.int64(schema.dur_column)));
  }
  for (int col = 0; col < static_cast<int>(schema.columns.size()); ++col) {
    if (schema.is_key(col)) continue;
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
  b.end_row();
  row_done(*last_key_, b);
}

void EventBlockSink::write(const Key& key, EventBlockBuilder& b) {
  insert(*std::get<0>(key), std::get<1>(key), std::get<2>(key), b.seal());
}

void EventBlockSink::add_block(const EventSchema& schema, int64_t run_id, const std::string& kind,
                               const SealedBlock& block) {
  // An open block of the same key holds earlier rows: it goes first.
  auto it = open_.find(Key{&schema, run_id, kind});
  if (it != open_.end() && it->second.rows() > 0) write(it->first, it->second);
  if (block.rows > 0) insert(schema, run_id, kind, block);
}

void EventBlockSink::insert(const EventSchema& schema, int64_t run_id, const std::string& kind,
                            const SealedBlock& block) {
  insert_.bind(1, run_id)
      .bind_static(2, schema.table)
      .bind_static(3, kind)
      .bind(4, ++seq_)
      .bind(5, static_cast<int64_t>(block.rows))
      .bind_blob_static(8, block.data);
  if (block.spanned) {
    insert_.bind(6, block.min_start).bind(7, block.max_end);
  } else {
    insert_.bind_null(6).bind_null(7);
  }
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
