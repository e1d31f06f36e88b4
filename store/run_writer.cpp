#include "store/run_writer.h"

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "store/bind.h"
#include "store/event_block_sink.h"
#include "store/json_text.h"
#include "store/run_registry.h"

namespace perfsage::store {

struct RunWriter::Statements {
  explicit Statements(Database& db)
      : events(db),
        step(
            db.prepare("INSERT INTO steps VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)")),
        graph_node(db.prepare(
            "INSERT INTO graph_nodes VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)")),
        graph_edge(db.prepare("INSERT INTO graph_edges VALUES(?1,?2,?3,?4,?5,?6,?7)")),
        tensor(db.prepare("INSERT INTO tensors VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)")),
        graph_attr(db.prepare("INSERT INTO graph_attrs VALUES(?1,?2,?3,?4,?5)")) {}
  EventBlockSink events;
  Statement step, graph_node, graph_edge, tensor, graph_attr;
};

namespace {

// Page cache while a run is written, in KiB (a negative cache_size). Ingest writes each page
// once: with a small cache SQLite writes full pages to the WAL as the parsers go instead of
// holding the whole run until the commit, which then has little left to write; the memory is
// not touched at all. Readers (analyzers) get the large cache back afterwards.
int64_t ingest_cache_kib() {
  if (const char* e = std::getenv("PERFSAGE_INGEST_CACHE_KIB")) return std::atoll(e);
  return 8192;
}

}  // namespace

RunWriter::RunWriter(Database& db, const RunHeader& h) : db_(db), txn_(db) {
  {
    auto st = db_.prepare("PRAGMA cache_size");
    if (st.step()) saved_cache_size_ = st.int64(0);
  }
  db_.exec("PRAGMA cache_size=-" + std::to_string(ingest_cache_kib()));
  // The commit leaves the run in the WAL; copying it into the database file is left to a
  // checkpoint that need not hold up the caller (store/background_checkpoint.h).
  {
    auto st = db_.prepare("PRAGMA wal_autocheckpoint");
    if (st.step()) saved_autocheckpoint_ = st.int64(0);
  }
  db_.exec("PRAGMA wal_autocheckpoint=0");
  auto st = db_.prepare(
      "INSERT INTO runs(job, inputs, fingerprint, created, status) "
      "VALUES(?1,?2,?3,?4,'ingesting')");
  insert(st, h.job, json_string_array(h.inputs), h.fingerprint, h.created);
  run_id_ = db_.last_insert_rowid();
  st_ = std::make_unique<Statements>(db_);
}

RunWriter::~RunWriter() {
  try {
    db_.exec("PRAGMA cache_size=" + std::to_string(saved_cache_size_));
    db_.exec("PRAGMA wal_autocheckpoint=" + std::to_string(saved_autocheckpoint_));
  } catch (...) {  // a destructor does not throw; the connection keeps the small cache
  }
}

void RunWriter::add(const OpTask& r) {
  st_->events.add(run_id_, r);
}

void RunWriter::add(const HostEvent& r) {
  st_->events.add(run_id_, r);
}

void RunWriter::add(const DeviceEvent& r) {
  st_->events.add(run_id_, r);
}

void RunWriter::add_block(const EventSchema& schema, const SealedBlock& block,
                          const std::string& kind) {
  st_->events.add_block(schema, run_id_, kind, block);
}

void RunWriter::shift_times(int64_t after_block, int64_t after_step, int64_t delta_ns) {
  if (delta_ns == 0) return;
  auto blocks = db_.prepare(
      "SELECT rowid, side, data FROM event_blocks WHERE run_id = ?1 AND rowid > ?2 "
      "AND side IN ('host_events', 'device_events')");
  blocks.bind(1, run_id_).bind(2, after_block);
  std::vector<std::pair<int64_t, std::string>> shifted;
  while (blocks.step()) {
    const EventSchema& schema =
        blocks.text_view(1) == "host_events" ? host_event_schema() : device_event_schema();
    shifted.emplace_back(blocks.int64(0), shift_int_column(schema, blocks.blob_view(2),
                                                           schema.start_column, delta_ns));
  }
  auto update = db_.prepare(
      "UPDATE event_blocks SET data = ?1, min_start_ns = min_start_ns + ?2, "
      "max_end_ns = max_end_ns + ?2 WHERE rowid = ?3");
  for (const auto& [rowid, data] : shifted)
    update.bind_blob_static(1, data).bind(2, delta_ns).bind(3, rowid).run();
  db_.prepare(
         "UPDATE steps SET start_ns = start_ns + ?1 WHERE run_id = ?2 AND rowid > ?3 "
         "AND start_ns IS NOT NULL")
      .bind(1, delta_ns)
      .bind(2, run_id_)
      .bind(3, after_step)
      .run();
}

void RunWriter::flush_events() {
  st_->events.flush();
}

void RunWriter::add(const Step& r) {
  insert(st_->step, run_id_, r.rank, r.step, r.source, r.start_ns, r.dur_ns, r.computing_us,
         r.comm_us, r.comm_not_overlapped_us, r.overlapped_us, r.free_us, r.dataloader_us,
         r.optimizer_us, r.bubble_us);
}

void RunWriter::add(const Hardware& r) {
  auto st = db_.prepare("INSERT INTO hardware VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)");
  insert(st, run_id_, r.rank, r.device_id, r.vendor, r.name, r.chip, r.ai_core_num, r.aiv_num,
         r.sm_count, r.freq_mhz, r.memory_bytes, r.compute_capability, r.props);
}

void RunWriter::add(const RankInfo& r) {
  auto st = db_.prepare("INSERT INTO ranks VALUES(?1,?2,?3,?4,?5,?6)");
  insert(st, run_id_, r.rank, r.world_size, r.backend, r.host, r.source);
}

void RunWriter::add(const GraphNode& r) {
  insert(st_->graph_node, run_id_, r.graph, r.name, r.type, r.engine, r.kernel_lib, r.block_dim,
         r.fusion_scope, r.pass_name, r.original_ops, r.unknown_shape, r.source, r.attrs);
}

void RunWriter::add(const GraphEdge& r) {
  insert(st_->graph_edge, run_id_, r.graph, r.src, r.src_index, r.dst, r.dst_index,
         static_cast<int64_t>(r.control));
}

void RunWriter::add(const TensorDesc& r) {
  insert(st_->tensor, run_id_, r.graph, r.node, r.direction, r.idx, r.name, r.dtype, r.format,
         r.origin_format, r.shape, r.bytes);
}

void RunWriter::add(const GraphAttr& r) {
  insert(st_->graph_attr, run_id_, r.graph, r.scope, r.key, r.value);
}

void RunWriter::add(const CommOp& r) {
  auto st = db_.prepare(
      "INSERT INTO comm_ops(run_id, rank, step, name, type, start_ns, dur_ns, transit_us, "
      "wait_us, sync_us, idle_us, bytes, bandwidth_gbps, transport, dtype, large_packet_ratio, "
      "packets, group_name) "
      "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)");
  insert(st, run_id_, r.rank, r.step, r.name, r.type, r.start_ns, r.dur_ns, r.transit_us, r.wait_us,
         r.sync_us, r.idle_us, r.bytes, r.bandwidth_gbps, r.transport, r.dtype,
         r.large_packet_ratio, r.packets, r.group);
}

void RunWriter::add(const FusionStat& r) {
  auto st = db_.prepare("INSERT INTO fusion_stats VALUES(?1,?2,?3,?4,?5,?6)");
  insert(st, run_id_, r.graph, r.pass, r.kind, r.match_times, r.effect_times);
}

void RunWriter::add(const IngestFile& r) {
  auto st = db_.prepare("INSERT INTO ingest_files VALUES(?1,?2,?3,?4,?5,?6)");
  insert(st, run_id_, r.path, r.collector, r.records, r.skipped, json_string_array(r.warnings));
}

void RunWriter::set_identity(const std::string& framework, const std::string& device,
                             const std::string& chip) {
  auto st = db_.prepare(
      "UPDATE runs SET framework=nullif(?2,''), device=nullif(?3,''), chip=nullif(?4,'') "
      "WHERE id=?1");
  insert(st, run_id_, framework, device, chip);
}

void RunWriter::commit() {
  flush_events();
  db_.prepare("UPDATE runs SET status=?2 WHERE id=?1").bind(1, run_id_).bind(2, kRunIngested).run();
  txn_.commit();
}

}  // namespace perfsage::store
