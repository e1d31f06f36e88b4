// The shared mode's schema in PostgreSQL, brought up to date by versioned migrations. Two
// daemons starting at once serialise on an advisory lock, so each step runs exactly once.
#pragma once

#include "store/pg/pg_connection.h"

namespace perfsage::store::pg {

// Applies the missing migrations; returns the schema version. Throws PgError naming the step
// that failed (the step's transaction is rolled back), or when the database's schema is newer
// than this perfsaged knows (an older binary must not write into it).
int migrate(Connection& c);

// The version this build writes.
int schema_version();

}  // namespace perfsage::store::pg
