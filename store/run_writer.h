// Writes one run into the store inside a single transaction: a failed ingest leaves nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "store/database.h"
#include "store/event_block.h"
#include "store/records.h"

namespace perfsage::store {

struct RunHeader {
  std::string job;
  std::vector<std::string> inputs;
  std::string fingerprint;
  std::string created;  // ISO-8601 UTC, supplied by the caller's clock
};

class RunWriter {
 public:
  RunWriter(Database& db, const RunHeader& header);
  ~RunWriter();  // rolls back unless commit() was called
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  int64_t run_id() const { return run_id_; }
  Database& db() { return db_; }

  void add(const OpTask& r);
  void add(const HostEvent& r);
  void add(const DeviceEvent& r);
  // A block of rows of `schema` built by the caller (a parser thread), stored after the rows
  // of the same table and kind added so far.
  // `kind`: for tables keyed by kind (events); op_tasks blocks have none.
  void add_block(const EventSchema& schema, const SealedBlock& block,
                 const std::string& kind = std::string());
  void add(const Step& r);
  void add(const Hardware& r);
  void add(const RankInfo& r);
  void add(const GraphNode& r);
  void add(const GraphEdge& r);
  void add(const TensorDesc& r);
  void add(const GraphAttr& r);
  void add(const CommOp& r);
  void add(const FusionStat& r);
  void add(const IngestFile& r);

  // Adds `delta_ns` to the start times of the host and device events in blocks after rowid
  // `after_block` and of the steps after rowid `after_step` (a parser that learned the trace's
  // base time only at its end). Call after flush_events().
  void shift_times(int64_t after_block, int64_t after_step, int64_t delta_ns);

  // Host and device events and op tasks are buffered into column blocks; this writes the open
  // blocks, so that the run's records so far can be read back or covered by a savepoint.
  void flush_events();
  // What the collectors learned about the run (stored with it, so that an analysis interrupted
  // after the commit can be redone without reading the inputs again).
  void set_identity(const std::string& framework, const std::string& device,
                    const std::string& chip);
  // Commits the run with status 'ingested': complete once its analysis marks it 'analyzed'.
  void commit();

 private:
  struct Statements;
  Database& db_;
  Transaction txn_;
  int64_t run_id_ = 0;
  int64_t saved_cache_size_ = -65536, saved_autocheckpoint_ = 1000;
  std::unique_ptr<Statements> st_;
};

}  // namespace perfsage::store
