// SQL INSERT into a block table (host_events, device_events, op_tasks): each inserted row
// becomes a block of one row. Meant for small hand-written data — pack test fixtures, tests —
// not for bulk loading, which goes through RunWriter and fills blocks of tens of thousands.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "store/event_block.h"

namespace perfsage::store {

// Stores the row given as xUpdate's column values (`values[i]` for column i) on `db`; sets
// `rowid` to the new row's rowid. Returns an SQLite result code, with `error` set on failure.
int insert_event_row(sqlite3* db, const EventSchema& schema, sqlite3_value** values, int64_t& rowid,
                     std::string& error);

// A row's rowid: the rowid of its block in event_blocks, then its row number in the block.
inline constexpr int kRowBits = 32;

}  // namespace perfsage::store
