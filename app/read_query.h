// `perfsage query`: one read-only SQL statement over a store, on a read-only connection that
// also refuses what such a connection still allows (ATTACH and VACUUM INTO create files, pragmas
// set things). host_events and device_events are virtual tables only a perfsage connection
// knows, so this is how users reach them.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsage::app {

struct QueryRow {
  const std::vector<std::string>& columns;                    // the statement's column names
  const std::vector<std::optional<std::string_view>>& cells;  // as text; nullopt for NULL
};

// Calls `row` for each result row. Throws (StoreError, std::exception) when the store cannot be
// opened or the SQL is not one statement that only reads.
void read_query(const std::string& store_path, std::string_view sql,
                const std::function<void(const QueryRow&)>& row);

}  // namespace perfsage::app
