// Derived tables written away from the store: an analyzer running on a reader connection of its
// own (analyzers run concurrently, see analyzers/core/analyze_run.cpp) writes its tables as
// TEMP tables of that connection, which shadow the store's tables of the same names; once it
// ends, its rows are copied into the store's tables by the writing connection.
#pragma once

#include <cstdint>
#include <vector>

#include "store/database.h"
#include "store/derived_tables.h"

namespace perfsage::store {

// Creates each table as an empty TEMP table of `reader`, with the declared columns.
void create_temp_tables(Database& reader, const std::vector<DerivedTable>& tables);

// Replaces `run_id`'s rows of `table` in `to` by those of the TEMP table of the same name in
// `from`, in the order they were written there (rowid), so that `to` gets the rows and the
// rowids that writing them to `to` directly would have given. Call within a transaction of `to`.
void copy_run_rows(Database& from, Database& to, const DerivedTable& table, int64_t run_id);

}  // namespace perfsage::store
