// Schema of the fact store and its forward migrations.
#pragma once

namespace perfsage::store {
class Database;

// Current schema version after migrate().
int current_schema_version();
// Brings the schema up to date, one transaction per migration step.
void migrate(Database& db);
// On a read-only store: empty TEMP copies of the tables an analysis of a stored run writes
// (findings, pack results), so that `analyze` of a stored run works and reports its findings
// without writing to the file.
void shadow_result_tables(Database& db);
}  // namespace perfsage::store
