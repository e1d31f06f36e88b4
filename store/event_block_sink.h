// Groups a run's host and device events (per kind) and its op tasks into column blocks and
// writes each block to event_blocks once it is full (or on flush), inside the caller's
// transaction.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "store/database.h"
#include "store/event_block.h"
#include "store/records.h"

namespace perfsage::store {

// Appends `t` as the next row of an op_tasks block.
void append_op_task(EventBlockBuilder& b, const OpTask& t);
// Appends an event as a row of a block of its table (the kind is the block's key, not a column).
void append_host_event(EventBlockBuilder& b, const HostEvent& e);
void append_device_event(EventBlockBuilder& b, const DeviceEvent& e);

class EventBlockSink {
 public:
  // Blocks close at this many rows or about this many payload bytes, whichever comes first:
  // large enough that a block costs one B-tree insert per ten thousand events, small enough
  // that the open blocks of all kinds stay a few tens of MB.
  static constexpr size_t kBlockRows = 32768;
  static constexpr size_t kBlockBytes = 4 << 20;

  explicit EventBlockSink(Database& db);

  void add(int64_t run_id, const HostEvent& e);
  void add(int64_t run_id, const DeviceEvent& e);
  void add(int64_t run_id, const OpTask& t);
  // Writes a block built elsewhere (by a parser thread) after the blocks of its run and kind
  // written so far.
  void add_block(const EventSchema& schema, int64_t run_id, const std::string& kind,
                 const SealedBlock& block);
  // Copies the current row of `row` (the table's columns in schema order) into a block.
  void add_row(const EventSchema& schema, Statement& row);
  // Writes every open block.
  void flush();

 private:
  using Key = std::tuple<const EventSchema*, int64_t, std::string>;
  EventBlockBuilder& builder(const EventSchema& schema, int64_t run_id, const std::string& kind);
  void row_done(const Key& key, EventBlockBuilder& b);
  void write(const Key& key, EventBlockBuilder& b);
  void insert(const EventSchema& schema, int64_t run_id, const std::string& kind,
              const SealedBlock& block);

  Database& db_;
  Statement insert_;
  std::map<Key, EventBlockBuilder> open_;
  const Key* last_key_ = nullptr;
  EventBlockBuilder* last_ = nullptr;
  int64_t seq_ = 0;
};

}  // namespace perfsage::store
