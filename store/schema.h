// Schema of the fact store and its forward migrations.
#pragma once

namespace perfsage::store {
class Database;

// Current schema version after migrate().
int current_schema_version();
// Brings the schema up to date, one transaction per migration step.
void migrate(Database& db);
}  // namespace perfsage::store
