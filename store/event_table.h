// host_events and device_events as SQL tables over the column blocks in event_blocks: two
// eponymous virtual tables, registered on every connection the store opens. They are read-only
// (rows are written through RunWriter) and answer run_id and kind equality by reading only that
// run's and kind's blocks, so analyzers and fact queries keep their plain SQL.
#pragma once

#include <sqlite3.h>

namespace perfsage::store {

// Registers both tables on `db`; returns an SQLite result code.
int register_event_tables(sqlite3* db);

}  // namespace perfsage::store
