// Derived tables: what analyzers compute from a run's raw records. Each analyzer declares the
// tables it writes (name and DDL, in its own folder); the store only makes sure that they exist
// with the declared shape. Raw record tables, results and the job and action tables stay in the
// migrations (store/schema.cpp), because their rows cannot be computed again.
#pragma once

#include <string>
#include <vector>

namespace perfsage::store {

class Database;

struct DerivedTable {
  std::string name;
  std::string ddl;  // CREATE TABLE name(...) and its CREATE INDEX statements; run_id column
};

// Creates the declared tables that are missing and re-creates those whose columns or indexes
// differ from their declaration (their rows are derived: the next analysis of a run writes them
// again). Tables that already match are left alone, so a read-only store passes when current.
// Returns the names of the tables created or re-created. Throws StoreError naming the table
// when a declaration is not valid SQL or does not create the table it names.
std::vector<std::string> ensure_derived_tables(Database& db,
                                               const std::vector<DerivedTable>& tables);

}  // namespace perfsage::store
