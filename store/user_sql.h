// SQL typed by a user (`perfsage query`): one statement, on a connection that can only read.
// The connection is opened read-only already; the authorizer also refuses what a read-only
// connection still allows: ATTACH (which creates files), VACUUM INTO (which writes one), and
// pragmas that set anything.
#pragma once

#include <string_view>

#include "store/database.h"

namespace perfsage::store {

// Installs the authorizer on `db`: only reading tables, calling functions, recursive queries
// and pragmas that report something are allowed; no database may be attached.
void allow_only_reads(Database& db);

// Prepares `sql`, which must be one statement (trailing blanks, comments and semicolons are
// fine); throws StoreError naming what is wrong otherwise.
Statement prepare_one_statement(Database& db, std::string_view sql);

}  // namespace perfsage::store
