#include "store/schema.h"

#include <array>
#include <initializer_list>
#include <optional>
#include <string>

#include "store/database.h"
#include "store/event_block_sink.h"

namespace perfsage::store {
namespace {

// Migration N brings the schema from version N-1 to N. Append only; never edit a shipped step.
// Migrations hold what cannot be computed again: raw records, results, jobs and actions. Derived
// tables are declared by the analyzer that writes them (analyzers/*/analyzer.cpp) and shaped by
// ensure_derived_tables(); the steps below that create some are history, matched by those
// declarations (tests/unit/analyzer_declarations_test.cpp), and a new derived table needs none.
constexpr std::array kMigrations = {
    // 1: runs, raw record tables, derived tables, results.
    R"sql(
CREATE TABLE runs(
  id INTEGER PRIMARY KEY, job TEXT, inputs TEXT NOT NULL, kind TEXT, framework TEXT,
  device TEXT, chip TEXT, fingerprint TEXT NOT NULL, created TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'ingested', ranks INTEGER, steps INTEGER,
  step_time_us REAL, device_time_us REAL);
CREATE INDEX runs_fingerprint ON runs(fingerprint);
CREATE INDEX runs_job ON runs(job);

CREATE TABLE ingest_files(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, path TEXT NOT NULL,
  collector TEXT NOT NULL, records INTEGER NOT NULL, skipped INTEGER NOT NULL,
  warnings TEXT NOT NULL DEFAULT '[]');

CREATE TABLE op_tasks(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT 0, device_id INTEGER, step INTEGER,
  model_id INTEGER, stream_id INTEGER, task_id INTEGER, name TEXT NOT NULL, type TEXT NOT NULL,
  core_type TEXT NOT NULL, op_state TEXT, start_ns INTEGER, dur_ns INTEGER NOT NULL,
  wait_ns INTEGER, block_dim INTEGER, mix_block_dim INTEGER,
  input_shapes TEXT, input_dtypes TEXT, input_formats TEXT,
  output_shapes TEXT, output_dtypes TEXT, output_formats TEXT,
  aicore_time_us REAL, aiv_time_us REAL, cube_fops REAL, vector_fops REAL,
  mac_ratio REAL, vec_ratio REAL, scalar_ratio REAL, mte1_ratio REAL, mte2_ratio REAL,
  mte3_ratio REAL, fixpipe_ratio REAL, read_bytes REAL, write_bytes REAL, metrics TEXT);
CREATE INDEX op_tasks_run ON op_tasks(run_id);

CREATE TABLE host_events(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT 0, kind TEXT NOT NULL,
  name TEXT NOT NULL, pid INTEGER, tid INTEGER, start_ns INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, external_id INTEGER, correlation INTEGER,
  input_dims TEXT, input_types TEXT, args TEXT);
CREATE INDEX host_events_run ON host_events(run_id, kind);

CREATE TABLE device_events(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT 0, kind TEXT NOT NULL,
  name TEXT NOT NULL, device INTEGER, stream INTEGER, start_ns INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, correlation INTEGER, external_id INTEGER,
  grid TEXT, block TEXT, registers INTEGER, shared_mem INTEGER, blocks_per_sm REAL,
  warps_per_sm REAL, occupancy REAL, bytes INTEGER, bandwidth_gbps REAL, memcpy_kind TEXT,
  args TEXT);
CREATE INDEX device_events_run ON device_events(run_id, kind);

CREATE TABLE steps(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT 0, step INTEGER NOT NULL,
  source TEXT NOT NULL, start_ns INTEGER, dur_ns INTEGER,
  computing_us REAL, comm_us REAL, comm_not_overlapped_us REAL, overlapped_us REAL,
  free_us REAL, dataloader_us REAL, optimizer_us REAL, bubble_us REAL);
CREATE INDEX steps_run ON steps(run_id);

CREATE TABLE hardware(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT 0, device_id INTEGER,
  vendor TEXT, name TEXT, chip TEXT, ai_core_num INTEGER, aiv_num INTEGER, sm_count INTEGER,
  freq_mhz REAL, memory_bytes INTEGER, compute_capability TEXT, props TEXT);

CREATE TABLE ranks(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, world_size INTEGER, backend TEXT,
  host TEXT, source TEXT);

CREATE TABLE graph_nodes(
  run_id INTEGER NOT NULL, graph TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL,
  engine TEXT, kernel_lib TEXT, block_dim INTEGER, fusion_scope INTEGER, pass_name TEXT,
  original_ops TEXT, unknown_shape INTEGER, source TEXT, attrs TEXT);
CREATE INDEX graph_nodes_run ON graph_nodes(run_id, name);

CREATE TABLE graph_edges(
  run_id INTEGER NOT NULL, graph TEXT NOT NULL, src TEXT NOT NULL, src_index INTEGER,
  dst TEXT NOT NULL, dst_index INTEGER, control INTEGER NOT NULL DEFAULT 0);
CREATE INDEX graph_edges_run ON graph_edges(run_id);

CREATE TABLE tensors(
  run_id INTEGER NOT NULL, graph TEXT NOT NULL, node TEXT NOT NULL, direction TEXT NOT NULL,
  idx INTEGER NOT NULL, name TEXT, dtype TEXT, format TEXT, origin_format TEXT, shape TEXT,
  bytes INTEGER);

CREATE TABLE comm_ops(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT 0, step INTEGER, name TEXT NOT NULL,
  type TEXT, start_ns INTEGER, dur_ns INTEGER, transit_us REAL, wait_us REAL, sync_us REAL,
  idle_us REAL, bytes REAL, bandwidth_gbps REAL, transport TEXT, dtype TEXT);

CREATE TABLE fusion_stats(
  run_id INTEGER NOT NULL, graph TEXT, pass TEXT NOT NULL, kind TEXT NOT NULL,
  match_times INTEGER, effect_times INTEGER);

CREATE TABLE op_stats(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT 0, name TEXT NOT NULL,
  type TEXT NOT NULL, core_type TEXT NOT NULL, count INTEGER NOT NULL, total_us REAL NOT NULL,
  avg_us REAL NOT NULL, min_us REAL NOT NULL, max_us REAL NOT NULL, share REAL NOT NULL,
  block_dim INTEGER, input_shapes TEXT, input_dtypes TEXT, input_formats TEXT,
  output_shapes TEXT, output_dtypes TEXT, output_formats TEXT, op_state TEXT,
  cube_fops REAL, vector_fops REAL, mac_ratio REAL, vec_ratio REAL, scalar_ratio REAL,
  mte2_ratio REAL, mte3_ratio REAL, read_bytes REAL, write_bytes REAL);
CREATE INDEX op_stats_run ON op_stats(run_id);

CREATE TABLE op_type_stats(
  run_id INTEGER NOT NULL, type TEXT NOT NULL, core_type TEXT NOT NULL, count INTEGER NOT NULL,
  ops INTEGER NOT NULL, total_us REAL NOT NULL, avg_us REAL NOT NULL, max_us REAL NOT NULL,
  share REAL NOT NULL);

CREATE TABLE recommendations(
  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  pack TEXT NOT NULL, pack_version TEXT NOT NULL, rule TEXT NOT NULL, severity TEXT NOT NULL,
  category TEXT, title TEXT NOT NULL, message TEXT NOT NULL, subjects TEXT NOT NULL,
  evidence TEXT NOT NULL, gain_us REAL, gain_share REAL, action TEXT, refs TEXT);
CREATE INDEX recommendations_run ON recommendations(run_id);

CREATE TABLE pack_results(
  run_id INTEGER NOT NULL, pack TEXT NOT NULL, version TEXT, status TEXT NOT NULL,
  fired INTEGER NOT NULL, error TEXT, elapsed_ms REAL);
)sql",
    // 2: graph/model attributes from GE dumps and ONNX models; graph node -> profiled op matches.
    R"sql(
CREATE TABLE graph_attrs(
  run_id INTEGER NOT NULL, graph TEXT NOT NULL, scope TEXT NOT NULL, key TEXT NOT NULL,
  value TEXT);
CREATE INDEX graph_attrs_run ON graph_attrs(run_id, key);

CREATE TABLE graph_op_matches(
  run_id INTEGER NOT NULL, graph TEXT NOT NULL, node TEXT NOT NULL, op_name TEXT NOT NULL,
  match TEXT NOT NULL);
CREATE INDEX graph_op_matches_run ON graph_op_matches(run_id, node);
)sql",
    // 3: iteration analyzers: per-rank step breakdown sums, device activity, host schedule.
    R"sql(
CREATE TABLE iteration_ranks(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, source TEXT NOT NULL, steps INTEGER NOT NULL,
  dur_us REAL, computing_us REAL, comm_us REAL, comm_not_overlapped_us REAL, overlapped_us REAL,
  free_us REAL, dataloader_us REAL, optimizer_us REAL);
CREATE INDEX iteration_ranks_run ON iteration_ranks(run_id);

CREATE TABLE device_activity(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, device INTEGER, activities INTEGER NOT NULL,
  window_us REAL, busy_us REAL, utilisation REAL, gap_threshold_us REAL, gaps INTEGER,
  gap_total_us REAL, longest_gap_us REAL, chunks INTEGER, low_chunks INTEGER,
  low_chunk_threshold REAL);

CREATE TABLE iteration_schedule(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, compile_execute_calls INTEGER,
  compile_execute_us REAL, op_compile_calls INTEGER, op_compile_us REAL, sync_calls INTEGER,
  sync_us REAL, launch_calls INTEGER, sync_after_launch INTEGER, memory_calls INTEGER,
  memory_us REAL);
)sql",
    // 4: graph patterns: fusion candidates and TransData chains (analyzers/patterns).
    R"sql(
CREATE TABLE fusion_candidates(
  run_id INTEGER NOT NULL, pattern TEXT NOT NULL, kind TEXT NOT NULL, pass TEXT, fix TEXT,
  source TEXT NOT NULL, graph TEXT, nodes TEXT NOT NULL, types TEXT NOT NULL, ops TEXT,
  fused INTEGER NOT NULL, count INTEGER, total_us REAL, share REAL);
CREATE INDEX fusion_candidates_run ON fusion_candidates(run_id);

CREATE TABLE transdata_chains(
  run_id INTEGER NOT NULL, kind TEXT NOT NULL, source TEXT NOT NULL, graph TEXT,
  nodes TEXT NOT NULL, transdata TEXT NOT NULL, formats TEXT, culprit TEXT, count INTEGER,
  total_us REAL, share REAL);
CREATE INDEX transdata_chains_run ON transdata_chains(run_id);
)sql",
    // 5: roofline: the run's resolved hardware, per-op roofline points, activation chains.
    R"sql(
CREATE TABLE hardware_specs(
  run_id INTEGER NOT NULL, part TEXT, match TEXT NOT NULL, candidates TEXT, family TEXT,
  cube_cores REAL, vector_cores REAL, sm_count REAL, freq_mhz REAL, memory_gib REAL,
  l2_mib REAL, compute_major INTEGER, peak_fp32 REAL, peak_tf32 REAL, peak_fp16 REAL,
  peak_bf16 REAL, peak_int8 REAL, peak_vector REAL, bandwidth REAL, cores_source TEXT,
  freq_source TEXT, peak_source TEXT, bw_source TEXT, note TEXT);

CREATE TABLE roofline_ops(
  run_id INTEGER NOT NULL, scope TEXT NOT NULL, name TEXT NOT NULL, type TEXT, core_type TEXT,
  count INTEGER, total_us REAL, share REAL, flops REAL, bytes REAL, flops_source TEXT,
  bytes_source TEXT, precision TEXT, peak_flops REAL, peak_bw REAL, ridge REAL, intensity REAL,
  attainable REAL, achieved REAL, utilisation REAL, roof_us REAL, bound TEXT NOT NULL,
  cause TEXT, dominant_pipe TEXT, pipe_ratio REAL, kernel TEXT, reason TEXT);
CREATE INDEX roofline_ops_run ON roofline_ops(run_id);

CREATE TABLE activation_patterns(
  run_id INTEGER NOT NULL, pattern TEXT NOT NULL, source TEXT NOT NULL, instances INTEGER,
  ops_per_instance INTEGER, total_us REAL, share REAL, example TEXT);
)sql",
    // 6: GPU analyzers (analyzers/gpu): per step and stream busy times, launch and sync stats.
    R"sql(
CREATE TABLE gpu_streams(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, step INTEGER NOT NULL, device INTEGER,
  stream INTEGER, kernels INTEGER NOT NULL, compute_us REAL NOT NULL, comm_us REAL NOT NULL,
  memcpy_us REAL NOT NULL, memset_us REAL NOT NULL, busy_us REAL NOT NULL, idle_us REAL NOT NULL);
CREATE INDEX gpu_streams_run ON gpu_streams(run_id);

CREATE TABLE gpu_launch_stats(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, launches INTEGER NOT NULL,
  launch_cpu_us REAL NOT NULL, launch_avg_us REAL, slow_launches INTEGER NOT NULL,
  linked INTEGER NOT NULL, delay_avg_us REAL, delay_max_us REAL, delayed INTEGER NOT NULL,
  kernels INTEGER NOT NULL, short_kernels INTEGER NOT NULL, short_kernel_us REAL NOT NULL,
  sync_calls INTEGER NOT NULL, sync_us REAL NOT NULL, device_sync_calls INTEGER NOT NULL,
  stream_sync_calls INTEGER NOT NULL, event_sync_calls INTEGER NOT NULL,
  wait_event_calls INTEGER NOT NULL, gpu_sync_events INTEGER NOT NULL,
  gpu_sync_us REAL NOT NULL);
)sql",
    // 7: the steps a run recorded, without the GPU analyzer's derived windows (source
    // gpu_breakdown), which mirror ProfilerStep or span a trace that has no steps. Step counts,
    // durations and totals read this view so that no reader has to remember the exception.
    R"sql(
CREATE VIEW recorded_steps AS SELECT * FROM steps WHERE source != 'gpu_breakdown';
)sql",
    // 8: raw host and device events move to column blocks (store/event_block.h), read through
    // the host_events / device_events virtual tables; convert_block_tables() moves the rows.
    // Each block records its events' earliest start and latest end, so a run's time span is
    // read from the blocks without decoding them.
    R"sql(
CREATE TABLE event_blocks(
  run_id INTEGER NOT NULL, side TEXT NOT NULL, kind TEXT NOT NULL, seq INTEGER NOT NULL,
  rows INTEGER NOT NULL, min_start_ns INTEGER, max_end_ns INTEGER, data BLOB NOT NULL);
CREATE INDEX event_blocks_key ON event_blocks(side, run_id, kind, seq);
)sql",
    // 9: GPU kernels per (kernel name, launching CPU op, op input types), computed once by the
    // GPU analyzer for the gpu_kernel and tensor_core facts. NULL op: not linked to a CPU op.
    R"sql(
CREATE TABLE kernel_groups(
  run_id INTEGER NOT NULL, name TEXT NOT NULL, op TEXT, types TEXT, kernels INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, occ_ns REAL, occ_weight INTEGER, bps_sum REAL, bps_n INTEGER NOT NULL);
CREATE INDEX kernel_groups_run ON kernel_groups(run_id);
)sql",
    // 10: Ascend op tasks move to column blocks as well (kind '' in event_blocks), read through
    // the op_tasks virtual table; convert_block_tables() moves the rows.
    "",
    // 11: op tasks with a block dim per (core type, name, block dim), computed once by the
    // op_stats analyzer for the block_dim fact (a GROUP BY over the tasks sorted every one).
    R"sql(
CREATE TABLE op_block_dims(
  run_id INTEGER NOT NULL, core_type TEXT NOT NULL, name TEXT NOT NULL,
  block_dim INTEGER NOT NULL, tasks INTEGER NOT NULL, dur_ns INTEGER NOT NULL);
CREATE INDEX op_block_dims_run ON op_block_dims(run_id);
)sql",
    // 12: the CPU op (External id) of kernel launches whose kernels carry the correlation id as
    // External id (older PyTorch), found by nesting (analyzers/core/launch_ops.h).
    R"sql(
CREATE TABLE kernel_launch_ops(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, correlation INTEGER NOT NULL,
  op_external_id INTEGER NOT NULL);
CREATE INDEX kernel_launch_ops_run ON kernel_launch_ops(run_id);
)sql",
    // 13: host API calls (runtime, driver, AscendCL) per rank and name, computed once by the
    // GPU analyzer for the api fact (its GROUP BY sorted every call).
    R"sql(
CREATE TABLE api_totals(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, name TEXT NOT NULL, calls INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, max_ns INTEGER NOT NULL);
CREATE INDEX api_totals_run ON api_totals(run_id);
)sql",
    // 14: the daemon's job queue (store/job_queue.h): one row per analysis to do, its lease
    // while a daemon runs it, and how it ended. A run's deletion leaves the job's history.
    R"sql(
CREATE TABLE jobs(
  id INTEGER PRIMARY KEY, job TEXT NOT NULL, inputs TEXT NOT NULL, source TEXT NOT NULL,
  signature TEXT NOT NULL, lenient INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0, crashes INTEGER NOT NULL DEFAULT 0, reason TEXT,
  run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL, owner TEXT, lease_until_ms INTEGER,
  submitted TEXT NOT NULL, started TEXT, finished TEXT);
CREATE INDEX jobs_state ON jobs(state, id);
CREATE INDEX jobs_inputs ON jobs(inputs, signature);
CREATE INDEX jobs_job ON jobs(job, id);
CREATE INDEX jobs_run ON jobs(run_id);
)sql",
    // 15: tuning actions (store/action_store.h): planned actions, applies and the files they
    // wrote, the audit trail, verdicts on the job's next run. No foreign key to runs: the
    // trail outlives the runs it names.
    R"sql(
CREATE TABLE action_plans(
  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, job TEXT, kind TEXT NOT NULL,
  key TEXT NOT NULL, findings TEXT NOT NULL, spec TEXT NOT NULL, summary TEXT NOT NULL,
  created TEXT NOT NULL, UNIQUE(run_id, key));

CREATE TABLE action_applies(
  id INTEGER PRIMARY KEY, plan_id INTEGER NOT NULL REFERENCES action_plans(id),
  out_dir TEXT NOT NULL, allow_inexact INTEGER NOT NULL, applied TEXT NOT NULL,
  actor TEXT NOT NULL, rolled_back TEXT, inputs TEXT NOT NULL);
CREATE INDEX action_applies_plan ON action_applies(plan_id);

CREATE TABLE action_files(
  apply_id INTEGER NOT NULL REFERENCES action_applies(id), path TEXT NOT NULL,
  sha256 TEXT NOT NULL, bytes INTEGER NOT NULL, role TEXT NOT NULL);
CREATE INDEX action_files_apply ON action_files(apply_id);

CREATE TABLE action_audit(
  id INTEGER PRIMARY KEY, at TEXT NOT NULL, actor TEXT NOT NULL, event TEXT NOT NULL,
  plan_id INTEGER, apply_id INTEGER, findings TEXT NOT NULL, detail TEXT NOT NULL);

CREATE TABLE action_verdicts(
  apply_id INTEGER NOT NULL, finding TEXT NOT NULL, before_run INTEGER NOT NULL,
  after_run INTEGER NOT NULL, metric TEXT NOT NULL, unit TEXT, before REAL, after REAL,
  noise REAL, verdict TEXT NOT NULL, finding_present INTEGER NOT NULL, detail TEXT NOT NULL,
  judged TEXT NOT NULL, PRIMARY KEY(apply_id, finding));
)sql",
    // 16: typed findings with stable ids replace the JSON recommendations (a run's results are
    // re-evaluated whenever it is analysed again); pack results say where a pack came from.
    R"sql(
DROP TABLE IF EXISTS recommendations;
CREATE TABLE findings(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, ord INTEGER NOT NULL,
  id TEXT NOT NULL, pack TEXT NOT NULL, rule TEXT NOT NULL, severity INTEGER NOT NULL,
  gain_us REAL NOT NULL, gain_share REAL NOT NULL, payload BLOB NOT NULL,
  PRIMARY KEY(run_id, ord));
CREATE INDEX findings_id ON findings(id, run_id);
ALTER TABLE pack_results ADD COLUMN source TEXT;
ALTER TABLE pack_results ADD COLUMN isolated INTEGER NOT NULL DEFAULT 0;
)sql",
    // 17: HTA-defined GPU time per rank (analyzers/gpu/time_breakdown.cpp): temporal breakdown,
    // communication/computation overlap and idle time by cause over the rank's whole trace.
    R"sql(
CREATE TABLE gpu_time_breakdown(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, window_us REAL NOT NULL, busy_us REAL NOT NULL,
  compute_us REAL NOT NULL, comm_us REAL NOT NULL, overlap_us REAL NOT NULL, idle_us REAL NOT NULL,
  streams INTEGER NOT NULL, gaps INTEGER NOT NULL, host_wait_us REAL NOT NULL,
  kernel_wait_us REAL NOT NULL, other_wait_us REAL NOT NULL, kernel_wait_cutoff_us REAL NOT NULL);
CREATE INDEX gpu_time_breakdown_run ON gpu_time_breakdown(run_id);
)sql",
    // 18: communication per transport keeps the large-packet ratio and the packet size
    // distribution, and cluster_communication.json rows their communication group.
    R"sql(
ALTER TABLE comm_ops ADD COLUMN large_packet_ratio REAL;
ALTER TABLE comm_ops ADD COLUMN packets TEXT;
ALTER TABLE comm_ops ADD COLUMN group_name TEXT;
)sql",
    // 19: cube operators whose shapes are not aligned (analyzers/roofline/shape_alignment.h).
    R"sql(
CREATE TABLE shape_alignment(
  run_id INTEGER NOT NULL, name TEXT NOT NULL, type TEXT, kind TEXT NOT NULL, dim TEXT,
  value INTEGER NOT NULL, multiple INTEGER NOT NULL, padded INTEGER NOT NULL, count INTEGER,
  total_us REAL, shapes TEXT);
CREATE INDEX shape_alignment_run ON shape_alignment(run_id);
)sql",
    // 20: structural estimates for graphs without a profile (analyzers/patterns/structure.h):
    // the graph's format, the output bytes a candidate stops writing and its share of the
    // graph's work; inference-graph clean-ups.
    R"sql(
ALTER TABLE fusion_candidates ADD COLUMN graph_format TEXT;
ALTER TABLE fusion_candidates ADD COLUMN saved_bytes INTEGER;
ALTER TABLE fusion_candidates ADD COLUMN structural_share REAL;
ALTER TABLE transdata_chains ADD COLUMN graph_format TEXT;
ALTER TABLE transdata_chains ADD COLUMN bytes INTEGER;
ALTER TABLE transdata_chains ADD COLUMN structural_share REAL;
CREATE TABLE graph_cleanups(
  run_id INTEGER NOT NULL, graph TEXT NOT NULL, graph_format TEXT NOT NULL, kind TEXT NOT NULL,
  pass TEXT NOT NULL, nodes TEXT NOT NULL, removed INTEGER NOT NULL, detail TEXT,
  exact INTEGER NOT NULL, bytes INTEGER, structural_share REAL NOT NULL,
  compute_nodes INTEGER NOT NULL);
CREATE INDEX graph_cleanups_run ON graph_cleanups(run_id);
)sql",
    // 21: self time of CPU ops per name (declared by analyzers/core/cpu_self_time_analyzer.cpp;
    // made here too so that a fresh store has every table the fact queries read).
    R"sql(
CREATE TABLE host_op_self(
  run_id INTEGER NOT NULL, name TEXT NOT NULL, count INTEGER NOT NULL, total_ns INTEGER NOT NULL,
  self_ns INTEGER NOT NULL);
CREATE INDEX host_op_self_run ON host_op_self(run_id, name);
)sql",
    // 22: a run is complete (status 'analyzed') only once every analyzer has run on it; one
    // left 'ingested' by a crash or a kill during analysis is analysed again when its inputs
    // come back. Runs stored before this version that have a summary (the analyzers' last
    // step) were analysed. A fingerprint names one run: of runs stored twice by concurrent
    // ingests, the latest complete one keeps it and the others get '#<id>' appended.
    R"sql(
UPDATE runs SET status = 'analyzed' WHERE status = 'ingested' AND ranks IS NOT NULL;
UPDATE runs SET fingerprint = fingerprint || '#' || id WHERE id NOT IN (
  SELECT coalesce(max(CASE WHEN status = 'analyzed' THEN id END), max(id))
  FROM runs GROUP BY fingerprint);
DROP INDEX runs_fingerprint;
CREATE UNIQUE INDEX runs_fingerprint ON runs(fingerprint);
)sql",
    // 23: fusion candidates found from tensor shapes (analyzers/patterns/shape_fusion.h): the
    // shapes that prove them and the onnx_rewrite pass that performs them on an ONNX model.
    R"sql(
ALTER TABLE fusion_candidates ADD COLUMN detail TEXT;
ALTER TABLE fusion_candidates ADD COLUMN rewrite TEXT;
)sql",
    // 24: the resolved device's vendor, architecture and the precisions its matrix units run
    // (analyzers/roofline/hardware_spec.h), which the precision advice is decided from.
    R"sql(
ALTER TABLE hardware_specs ADD COLUMN vendor TEXT;
ALTER TABLE hardware_specs ADD COLUMN arch TEXT;
ALTER TABLE hardware_specs ADD COLUMN isa TEXT;
ALTER TABLE hardware_specs ADD COLUMN matrix_fp16 TEXT;
ALTER TABLE hardware_specs ADD COLUMN matrix_bf16 TEXT;
ALTER TABLE hardware_specs ADD COLUMN matrix_tf32 TEXT;
ALTER TABLE hardware_specs ADD COLUMN matrix_fp8 TEXT;
)sql",
    // 25: host blocking, queue depth, collective types and CUPTI range counters of GPU runs
    // (declared by
    // analyzers/gpu/analyzer.cpp; made here too so that a fresh store has every table the fact
    // queries read).
    R"sql(
CREATE TABLE host_blocking(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, kind TEXT NOT NULL, call TEXT NOT NULL,
  op TEXT NOT NULL, top_op TEXT NOT NULL, python TEXT NOT NULL, in_step INTEGER,
  calls INTEGER NOT NULL, dur_ns INTEGER NOT NULL, max_ns INTEGER NOT NULL);
CREATE INDEX host_blocking_run ON host_blocking(run_id);
CREATE TABLE gpu_queues(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, device INTEGER, stream INTEGER,
  activities INTEGER NOT NULL, unlinked INTEGER NOT NULL, graph_launched INTEGER NOT NULL,
  busy_us REAL NOT NULL, window_us REAL NOT NULL, max_depth INTEGER NOT NULL,
  median_depth REAL NOT NULL, mean_depth REAL NOT NULL, zero_share REAL);
CREATE INDEX gpu_queues_run ON gpu_queues(run_id);
CREATE TABLE gpu_collectives(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, type TEXT NOT NULL, kernels INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, bytes REAL);
CREATE INDEX gpu_collectives_run ON gpu_collectives(run_id);
CREATE TABLE gpu_range_counters(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, name TEXT NOT NULL, ranges INTEGER NOT NULL,
  replay_ns INTEGER NOT NULL, flops_fp16 REAL, flops_fp32 REAL, flops_fp64 REAL,
  tensor_insts REAL, dram_bytes REAL);
CREATE INDEX gpu_range_counters_run ON gpu_range_counters(run_id);
CREATE TABLE gpu_collective_ranks(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, type TEXT NOT NULL, aligned INTEGER NOT NULL,
  unaligned INTEGER NOT NULL, wait_ns INTEGER NOT NULL, transfer_ns INTEGER NOT NULL,
  last_count INTEGER NOT NULL, clock_offset_ns INTEGER NOT NULL);
CREATE INDEX gpu_collective_ranks_run ON gpu_collective_ranks(run_id);
)sql",
};

// Rows of tables that became blocks are moved into blocks; the tables are dropped, so the names
// now resolve to the virtual tables over the blocks.
void convert_block_tables(Database& db, std::initializer_list<const EventSchema*> schemas) {
  EventBlockSink sink(db);
  for (const EventSchema* schema : schemas) {
    std::string table = schema->table;
    auto st = db.prepare("SELECT * FROM " + table + " ORDER BY rowid");
    while (st.step()) sink.add_row(*schema, st);
  }
  sink.flush();
  for (const EventSchema* schema : schemas) db.exec(std::string("DROP TABLE ") + schema->table);
}

}  // namespace

void shadow_result_tables(Database& db) {
  // TEMP tables of the same names come first in name resolution, so an analysis of a stored
  // run reads and writes its results there, for this connection only.
  for (const char* table : {"findings", "pack_results"}) {
    auto have = db.prepare("SELECT 1 FROM temp.sqlite_schema WHERE name = ?1");
    have.bind(1, table);
    if (have.step()) continue;  // shadowed already
    auto st = db.prepare("SELECT sql FROM main.sqlite_schema WHERE type = 'table' AND name = ?1");
    st.bind(1, table);
    if (!st.step()) continue;
    std::string sql = st.text(0);
    const std::string create = "CREATE TABLE ";
    if (sql.rfind(create, 0) != 0) continue;
    db.exec("CREATE TEMP TABLE " + sql.substr(create.size()));
  }
}

int current_schema_version() {
  return static_cast<int>(kMigrations.size());
}

void migrate(Database& db) {
  // A store already at this version is only read here, so that a read-only one opens.
  bool fresh = !db.prepare("SELECT 1 FROM sqlite_schema WHERE name='schema_version'").step();
  if (fresh) {
    // IF NOT EXISTS: another process may be creating the same new store right now.
    db.exec("CREATE TABLE IF NOT EXISTS schema_version(version INTEGER PRIMARY KEY, applied TEXT)");
  }
  int have = db.schema_version();
  if (have > current_schema_version()) {
    throw StoreError("store " + db.path() + " has schema version " + std::to_string(have) +
                     ", newer than this perfsage (" + std::to_string(current_schema_version()) +
                     ")");
  }
  if (have < current_schema_version() && db.read_only()) {
    throw StoreError("store " + db.path() + " is read-only and has schema version " +
                     std::to_string(have) + "; this perfsage needs version " +
                     std::to_string(current_schema_version()) +
                     ": open it once with write access to upgrade it");
  }
  // A new store gets every step in one transaction (one commit instead of one per step, most
  // of creating it); a store holding runs commits step by step, so that the log never holds the
  // rewrite of all its events at once.
  std::optional<Transaction> whole;
  if (have == 0) whole.emplace(db);
  while (have < current_schema_version()) {
    std::optional<Transaction> step;
    if (!whole) step.emplace(db);
    // Read again under the write lock: a process opening the same store at the same time may
    // have applied this step while this one waited for the lock.
    int v = db.schema_version();
    if (v >= current_schema_version()) break;
    db.exec(kMigrations[v]);
    if (v + 1 == 8) convert_block_tables(db, {&host_event_schema(), &device_event_schema()});
    if (v + 1 == 10) convert_block_tables(db, {&op_task_schema()});
    db.prepare("INSERT INTO schema_version VALUES(?1, datetime('now'))").bind(1, v + 1).run();
    if (step) step->commit();
    have = v + 1;
  }
  if (whole) whole->commit();
  // The version in the file header too, where other tools (sqlite3, backups) look for it.
  bool stamped = false;
  {
    auto user_version = db.prepare("PRAGMA user_version");
    stamped = user_version.step() && user_version.int64(0) == current_schema_version();
  }
  if (!stamped) db.exec("PRAGMA user_version=" + std::to_string(current_schema_version()));
}

}  // namespace perfsage::store
